#include "common/service_runner.h"

int main(int argc, char** argv) {
  return tidepool::common::RunService(
      argc, argv,
      {.name = "pod-scheduler",
       .summary =
           "Places Kubernetes pods through Slurm's scheduler with a placeholder job per pod.",
       .setup = nullptr});
}

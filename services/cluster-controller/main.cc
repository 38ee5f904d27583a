#include "common/service_runner.h"

int main(int argc, char** argv) {
  return tidepool::common::RunService(
      argc, argv,
      {.name = "cluster-controller",
       .summary = "Reconciles SlurmCluster resources: Slurm control plane, secrets and rendered "
                  "configuration.",
       .setup = nullptr});
}

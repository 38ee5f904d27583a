#include "common/service_runner.h"

int main(int argc, char** argv) {
  return tidepool::common::RunService(
      argc, argv,
      {.name = "nodeset-controller",
       .summary = "Reconciles NodeSet resources: one slurmd pod per matching Kubernetes Node.",
       .setup = nullptr});
}

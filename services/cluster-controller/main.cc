#include "common/service_runner.h"
#include "setup.h"

int main(int argc, char** argv) {
  return tidepool::common::RunService(
      argc, argv,
      {.name = "cluster-controller",
       .summary = "Reconciles SlurmCluster resources: renders their Slurm configuration into a "
                  "ConfigMap and reconfigures Slurm when it changes.",
       .setup = tidepool::cluster::SetUpClusterController});
}

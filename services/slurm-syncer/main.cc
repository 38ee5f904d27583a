#include "common/service_runner.h"
#include "setup.h"

int main(int argc, char** argv) {
  return tidepool::common::RunService(
      argc, argv,
      {.name = "slurm-syncer",
       .summary = "Keeps Slurm and Kubernetes in agreement about nodes; the only client of "
                  "slurmrestd. Serves Slurm node state, drains and job operations over gRPC.",
       .setup = tidepool::syncer::SetUpSlurmSyncer});
}

#include "common/service_runner.h"
#include "setup.h"

int main(int argc, char** argv) {
  return tidepool::common::RunService(
      argc, argv,
      {.name = "pod-scheduler",
       .summary = "Places Kubernetes pods through Slurm's scheduler: a placeholder job per pod "
                  "(through slurm-syncer), the pod bound where Slurm starts it.",
       .setup = tidepool::podsched::SetUpPodScheduler});
}

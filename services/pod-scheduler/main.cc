#include "absl/flags/flag.h"
#include "common/service_runner.h"
#include "k8s/client_flags.h"
#include "setup.h"

int main(int argc, char** argv) {
  // Each placed pod costs about four API writes (its job-id annotation, the binding and
  // two events): the services' shared default of 20 requests/s would cap placement near
  // 5 pods/s. The flags still override these.
  absl::SetFlag(&FLAGS_kube_api_qps, 200);
  absl::SetFlag(&FLAGS_kube_api_burst, 400);
  return tidepool::common::RunService(
      argc, argv,
      {.name = "pod-scheduler",
       .summary = "Places Kubernetes pods through Slurm's scheduler: a placeholder job per pod "
                  "(through slurm-syncer), the pod bound where Slurm starts it.",
       .setup = tidepool::podsched::SetUpPodScheduler});
}

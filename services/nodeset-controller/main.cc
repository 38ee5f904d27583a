#include "common/service_runner.h"
#include "setup.h"

int main(int argc, char** argv) {
  return tidepool::common::RunService(
      argc, argv,
      {.name = "nodeset-controller",
       .summary = "Reconciles NodeSet resources: one slurmd pod per matching Kubernetes Node; "
                  "drains through slurm-syncer before it deletes a pod.",
       .setup = tidepool::nodeset::SetUpNodeSetController});
}

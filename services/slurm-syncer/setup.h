#pragma once

// slurm-syncer assembled: the gateway to slurmrestd, the node and job feeds with their
// poll loops, and the gRPC service over them.

#include "absl/status/status.h"
#include "common/service_runner.h"

namespace tidepool::syncer {

// Builds the syncer from its flags into `context`: gRPC service, readiness check
// ("slurm": the first node poll succeeded and the last one did too), metrics and
// shutdown. InvalidArgument for bad flags.
absl::Status SetUpSlurmSyncer(common::ServiceContext& context);

}  // namespace tidepool::syncer

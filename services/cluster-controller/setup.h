#pragma once

#include "absl/status/status.h"
#include "common/service_runner.h"

namespace tidepool::cluster {

// Builds the config loop from the flags into `context`: Kubernetes client, gRPC channels
// to config-renderer and slurm-syncer, readiness ("informers": caches synced), shutdown.
absl::Status SetUpClusterController(common::ServiceContext& context);

}  // namespace tidepool::cluster

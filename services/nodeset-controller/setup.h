#pragma once

// nodeset-controller assembled from its flags: the API client, shared informers, the
// syncer client, the event recorder, the controller and leader election.

#include "absl/status/status.h"
#include "common/service_runner.h"

namespace tidepool::nodeset {

// InvalidArgument for bad flags; the error of the kubeconfig when it cannot be loaded.
absl::Status SetUpNodeSetController(common::ServiceContext& context);

}  // namespace tidepool::nodeset

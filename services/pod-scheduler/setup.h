#pragma once

// pod-scheduler assembled from its flags: the API client, informers over the pods that
// name a scheduler other than the default one and over the cluster's NodeSets, slurmd pods
// and SlurmCluster, the syncer job watch, the event recorder, the sync controller and
// leader election.

#include "absl/status/status.h"
#include "common/service_runner.h"

namespace tidepool::podsched {

// InvalidArgument for bad flags; the error of the kubeconfig or channel when unusable.
absl::Status SetUpPodScheduler(common::ServiceContext& context);

}  // namespace tidepool::podsched

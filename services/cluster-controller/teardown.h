#pragma once

// The ordered teardown of a SlurmCluster whose control plane runs as pods: the finalizer
// tidepool.dev/teardown is added to every such cluster, and once the cluster is being
// deleted each pass observes its workloads, pods and claims through the API (not the
// caches: the control plane's pods are not cached, and a pass must see what is there
// now), acts on what teardown_plan.h decides, records an event per stage and keeps Ready
// False with reason Terminating. Everything it needs is on the API server, so a
// controller restarted mid-teardown carries on where the last one stopped.

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "k8s/client.h"
#include "k8s/controller.h"
#include "k8s/event_recorder.h"
#include "sync.h"
#include "teardown_plan.h"

namespace tidepool::cluster {

class ClusterTeardown {
 public:
  // Everything passed outlives the teardown. `poll`: how soon a pass that waits for pods
  // looks again (pod deletions do not wake the cluster's key).
  ClusterTeardown(k8s::Client& client, k8s::EventRecorder& events, common::Clock* clock,
                  std::string field_manager, absl::Duration poll = absl::Seconds(2));

  // Adds the finalizer to a cluster that is not being deleted and lacks it.
  absl::Status EnsureFinalizer(const ClusterContext& cluster);

  // One pass over a cluster being deleted; nothing when it does not hold our finalizer.
  absl::StatusOr<k8s::ReconcileResult> Advance(const ClusterContext& cluster);

 private:
  absl::StatusOr<TeardownObservation> Observe(const ClusterContext& cluster);
  absl::Status DeleteWorkloads(const ClusterContext& cluster, const TeardownDecision& decision);
  absl::Status DeleteClaims(const ClusterContext& cluster, const TeardownDecision& decision);
  absl::Status RemoveFinalizer(const ClusterContext& cluster);
  absl::Status WriteWaiting(const ClusterContext& cluster, const TeardownDecision& decision);
  void Event(const ClusterContext& cluster, absl::string_view reason, absl::string_view note);

  k8s::Client& client_;
  k8s::EventRecorder& events_;
  common::Clock* const clock_;
  const std::string field_manager_;
  const absl::Duration poll_;
};

}  // namespace tidepool::cluster

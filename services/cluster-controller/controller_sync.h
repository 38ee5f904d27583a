#pragma once

// The controller step: a cluster's slurmctld as pods (controller_builders.h) once its auth
// Secrets are there. Objects are applied only when their body changed since the last
// apply (applied_hash.h); the state claim is created once and never deleted here.

#include <string>

#include "absl/status/statusor.h"
#include "hashed_applier.h"
#include "k8s/client.h"
#include "k8s/event_recorder.h"
#include "k8s/informer.h"
#include "k8s/resource.h"
#include "sync.h"
#include "tidepool/v1/slurm_cluster.pb.h"

namespace tidepool::cluster {

class ControllerStep : public ClusterStep {
 public:
  // Everything passed outlives the step.
  ControllerStep(k8s::Client& client, ClusterInformers informers, k8s::EventRecorder& events,
                 std::string field_manager, std::string cluster_domain);

  const char* name() const override { return "controller"; }
  absl::StatusOr<k8s::ReconcileResult> Sync(const ClusterContext& cluster,
                                            ClusterOutcome& outcome) override;

 private:
  // Creates the state claim when absent and checks an existing one fits `replicas`.
  absl::Status EnsureStateClaim(const v1::SlurmCluster& spec, int replicas);

  k8s::Client& client_;
  const ClusterInformers informers_;
  k8s::EventRecorder& events_;
  HashedApplier applier_;
  const std::string cluster_domain_;
};

}  // namespace tidepool::cluster

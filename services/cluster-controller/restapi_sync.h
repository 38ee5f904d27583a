#pragma once

// The REST API step: a cluster's slurmrestd as pods (restapi_builders.h) once its auth
// Secrets are there, applied only when changed (hashed_applier.h). The syncer reaches it
// through the Service with tokens minted from the cluster's JWT key Secret.

#include <string>

#include "absl/status/statusor.h"
#include "hashed_applier.h"
#include "k8s/event_recorder.h"
#include "sync.h"

namespace tidepool::cluster {

class RestApiStep : public ClusterStep {
 public:
  // Everything passed outlives the step.
  RestApiStep(k8s::Client& client, ClusterInformers informers, k8s::EventRecorder& events,
              std::string field_manager);

  const char* name() const override { return "rest-api"; }
  absl::StatusOr<k8s::ReconcileResult> Sync(const ClusterContext& cluster,
                                            ClusterOutcome& outcome) override;

 private:
  const ClusterInformers informers_;
  k8s::EventRecorder& events_;
  HashedApplier applier_;
};

}  // namespace tidepool::cluster

#pragma once

// The REST API step: a cluster's slurmrestd as pods (restapi_builders.h) once its auth
// Secrets are there (component_step.h does the applying and the condition). The syncer
// reaches it through the Service with tokens minted from the cluster's JWT key Secret.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "component_step.h"

namespace tidepool::cluster {

class RestApiStep : public ComponentStep {
 public:
  // Everything passed outlives the step.
  RestApiStep(k8s::Client& client, ClusterInformers informers, k8s::EventRecorder& events,
              std::string field_manager);

  const char* name() const override { return "rest-api"; }

 protected:
  ComponentOutcome& OutcomeOf(ClusterOutcome& outcome) const override { return outcome.rest_api; }
  const char* component() const override;
  const char* applied_reason() const override;
  absl::Status Validate(const v1::SlurmCluster& spec) const override;
  std::vector<OwnedName> Owns(const v1::SlurmCluster& spec) const override;
  absl::StatusOr<ComponentPlan> Plan(const v1::SlurmCluster& spec,
                                     const ClusterOutcome& outcome) override;

 private:
  const ClusterInformers informers_;
};

}  // namespace tidepool::cluster

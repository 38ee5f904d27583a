#pragma once

// The controller step: a cluster's slurmctld as pods (controller_builders.h) once its auth
// Secrets are there (component_step.h does the applying and the condition). The state
// claim is created once and never deleted here.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "component_step.h"

namespace tidepool::cluster {

class ControllerStep : public ComponentStep {
 public:
  // Everything passed outlives the step.
  ControllerStep(k8s::Client& client, ClusterInformers informers, k8s::EventRecorder& events,
                 std::string field_manager, std::string cluster_domain);

  const char* name() const override { return "controller"; }

 protected:
  ComponentOutcome& OutcomeOf(ClusterOutcome& outcome) const override { return outcome.controller; }
  const char* component() const override;
  const char* applied_reason() const override;
  absl::Status Validate(const v1::SlurmCluster& spec) const override;
  std::vector<OwnedName> Owns(const v1::SlurmCluster& spec) const override;
  absl::StatusOr<ComponentPlan> Plan(const v1::SlurmCluster& spec,
                                     const ClusterOutcome& outcome) override;
  bool KeepsData() const override { return true; }
  std::vector<DataClaim> DataClaims(const v1::SlurmCluster& spec) const override;

 private:
  // Creates the state claim when absent and checks an existing one fits `replicas`.
  absl::Status EnsureStateClaim(const v1::SlurmCluster& spec, int replicas);

  const ClusterInformers informers_;
  const std::string cluster_domain_;
};

}  // namespace tidepool::cluster

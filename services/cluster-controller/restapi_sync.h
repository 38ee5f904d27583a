#pragma once

// The REST API step: a cluster's slurmrestd as pods (restapi_builders.h) once its auth
// Secrets are there (component_step.h does the applying and the condition). Before
// applying it makes sure of the TLS Secret the pods serve with, generated once and never
// rewritten (restapi_tls.h); one that cannot be used blocks the step with nothing applied.
// The syncer reaches slurmrestd through the Service over TLS, trusting that Secret's CA,
// with tokens minted from the cluster's JWT key Secret.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "component_step.h"
#include "restapi_tls.h"

namespace tidepool::cluster {

class RestApiStep : public ComponentStep {
 public:
  // Everything passed outlives the step.
  RestApiStep(k8s::Client& client, ClusterInformers informers, k8s::EventRecorder& events,
              std::string field_manager, std::string cluster_domain);

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
  // Creates the TLS Secret, or checks the one that already exists.
  absl::StatusOr<RestApiTlsVerdict> EnsureTlsSecret(const v1::SlurmCluster& spec);

  const ClusterInformers informers_;
  const std::string field_manager_;
  const std::string cluster_domain_;
};

}  // namespace tidepool::cluster

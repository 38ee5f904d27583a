#include "restapi_sync.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "restapi_builders.h"
#include "tidepool/contract.h"
#include "tidepool/naming.h"

namespace tidepool::cluster {

RestApiStep::RestApiStep(k8s::Client& client, ClusterInformers informers,
                         k8s::EventRecorder& events, std::string field_manager)
    : ComponentStep(client, events, std::move(field_manager)), informers_(informers) {}

const char* RestApiStep::component() const { return api::kSlurmrestdComponent; }
const char* RestApiStep::applied_reason() const { return api::kRestApiAppliedReason; }

absl::Status RestApiStep::Validate(const v1::SlurmCluster& spec) const {
  return ValidateRestApiSpec(spec);
}

std::vector<OwnedName> RestApiStep::Owns(const v1::SlurmCluster& spec) const {
  const std::string name = api::RestApiName(spec.metadata().name());
  return {{&k8s::Services(), informers_.services, name},
          {&k8s::Deployments(), informers_.deployments, name}};
}

absl::StatusOr<ComponentPlan> RestApiStep::Plan(const v1::SlurmCluster& spec,
                                                const ClusterOutcome& outcome) {
  const std::string name = api::RestApiName(spec.metadata().name());
  return ComponentPlan{
      .objects = {{&k8s::Services(), informers_.services, name, RestApiServiceBody(spec)},
                  {&k8s::Deployments(), informers_.deployments, name,
                   RestApiDeploymentBody(
                       {.cluster = &spec, .munge_key_secret = outcome.auth.munge_key_secret})}},
      .replicas = *RestApiReplicas(spec),
      .workload_cache = informers_.deployments,
      .workload_name = name,
      .ready_replicas_of = &AvailableReplicasOfDeployment,
      .description = absl::StrCat("slurmrestd Deployment ", name)};
}

}  // namespace tidepool::cluster

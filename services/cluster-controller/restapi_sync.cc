#include "restapi_sync.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "restapi_builders.h"
#include "tidepool/contract.h"
#include "tidepool/naming.h"

namespace tidepool::cluster {

RestApiStep::RestApiStep(k8s::Client& client, ClusterInformers informers,
                         k8s::EventRecorder& events, std::string field_manager)
    : informers_(informers), events_(events), applier_(client, std::move(field_manager)) {}

absl::StatusOr<k8s::ReconcileResult> RestApiStep::Sync(const ClusterContext& cluster,
                                                       ClusterOutcome& outcome) {
  ComponentOutcome& result = outcome.rest_api;
  result.managed = true;
  result.pod_selector = absl::StrCat(api::kComponentLabel, "=", api::kSlurmrestdComponent, ",",
                                     api::kClusterLabel, "=", cluster.cluster->meta.name);
  if (!outcome.auth.ready) {
    result.blocked_reason = "WaitingForAuth";
    result.error = "slurmrestd waits for the cluster's munge key Secret";
    return k8s::ReconcileResult{};
  }
  const absl::StatusOr<v1::SlurmCluster>& spec = cluster.spec;
  absl::Status valid = spec.ok() ? ValidateRestApiSpec(*spec) : spec.status();
  if (!valid.ok()) {
    result.blocked_reason = api::kInvalidSpecReason;
    result.error = std::string(valid.message());
    return k8s::ReconcileResult{};  // nothing to retry until the spec changes
  }
  const std::string& ns = spec->metadata().namespace_();
  const std::string name = api::RestApiName(spec->metadata().name());
  absl::StatusOr<bool> wrote = applier_.ApplyAll(
      ns, {{&k8s::Services(), informers_.services, name, RestApiServiceBody(*spec)},
           {&k8s::Deployments(), informers_.deployments, name,
            RestApiDeploymentBody(
                {.cluster = &*spec, .munge_key_secret = outcome.auth.munge_key_secret})}});
  if (!wrote.ok()) return wrote.status();
  result.applied = true;
  result.replicas = *RestApiReplicas(*spec);
  if (*wrote && cluster.ref.has_value()) {
    events_.Record(*cluster.ref, k8s::EventType::kNormal, api::kRestApiAppliedReason, "Apply",
                   absl::StrCat("applied slurmrestd Deployment ", name, " with ", result.replicas,
                                result.replicas == 1 ? " replica" : " replicas"));
  }
  if (k8s::CachedObjectPtr deployment = informers_.deployments->Get(absl::StrCat(ns, "/", name))) {
    result.ready_replicas = AvailableReplicasOf(deployment->json);
  }
  return k8s::ReconcileResult{};
}

}  // namespace tidepool::cluster

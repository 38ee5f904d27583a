#include "restapi_sync.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "generated_secret.h"
#include "restapi_builders.h"
#include "tidepool/contract.h"
#include "tidepool/naming.h"

namespace tidepool::cluster {

RestApiStep::RestApiStep(k8s::Client& client, ClusterInformers informers,
                         k8s::EventRecorder& events, std::string field_manager,
                         std::string cluster_domain)
    : ComponentStep(client, events, field_manager),
      informers_(informers),
      field_manager_(std::move(field_manager)),
      cluster_domain_(std::move(cluster_domain)) {}

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

absl::StatusOr<RestApiTlsVerdict> RestApiStep::EnsureTlsSecret(const v1::SlurmCluster& spec) {
  const std::string& ns = spec.metadata().namespace_();
  const std::string name = api::RestApiTlsSecretName(spec.metadata().name());
  RestApiTlsVerdict checked;
  absl::StatusOr<GeneratedSecretResult> secret = EnsureGeneratedSecret(
      client(), field_manager_, ns, name,
      {.make_body = [&]() -> absl::StatusOr<std::string> {
         absl::StatusOr<RestApiTls> tls = GenerateRestApiTls(spec, cluster_domain_, absl::Now());
         if (!tls.ok()) return tls.status();
         checked.cert_digest = TlsCertDigest(tls->cert_pem);
         return RestApiTlsSecretBody(spec, *tls);
       },
       .check =
           [&](absl::string_view json) {
             checked = CheckRestApiTlsSecret(spec, json, absl::Now());
             return checked.verdict;
           }});
  if (!secret.ok()) return secret.status();
  if (secret->created) {
    common::LogInfo("restapi_tls_created",
                    {{"cluster", absl::StrCat(ns, "/", spec.metadata().name())}, {"secret", name}});
  }
  checked.verdict = secret->verdict;
  return checked;
}

absl::StatusOr<ComponentPlan> RestApiStep::Plan(const v1::SlurmCluster& spec,
                                                const ClusterOutcome& outcome) {
  absl::StatusOr<RestApiTlsVerdict> tls = EnsureTlsSecret(spec);
  if (!tls.ok()) return tls.status();
  if (!tls->verdict.usable) {
    return Blocked(api::kRestApiTlsInvalidReason, std::move(tls->verdict.problem), kSecretRecheck);
  }
  const std::string name = api::RestApiName(spec.metadata().name());
  return ComponentPlan{
      .objects = {{&k8s::Services(), informers_.services, name, RestApiServiceBody(spec)},
                  {&k8s::Deployments(), informers_.deployments, name,
                   RestApiDeploymentBody(
                       {.cluster = &spec,
                        .munge_key_secret = outcome.auth.munge_key_secret,
                        .tls_secret = api::RestApiTlsSecretName(spec.metadata().name()),
                        .tls_cert_digest = tls->cert_digest})}},
      .replicas = *RestApiReplicas(spec),
      .workload_cache = informers_.deployments,
      .workload_name = name,
      .ready_replicas_of = &AvailableReplicasOfDeployment,
      .description = absl::StrCat("slurmrestd Deployment ", name),
      // The TLS Secret is read, not watched: a deleted one is made again within this.
      .recheck_after = kSecretRecheck};
}

}  // namespace tidepool::cluster

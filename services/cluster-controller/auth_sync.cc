#include "auth_sync.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/log.h"
#include "component_step.h"
#include "generated_secret.h"
#include "k8s/resource.h"
#include "random_bytes.h"
#include "tidepool/contract.h"

namespace tidepool::cluster {

AuthStep::AuthStep(k8s::Client& client, k8s::EventRecorder& events, std::string field_manager)
    : client_(client), events_(events), field_manager_(std::move(field_manager)) {}

void AuthStep::Event(const ClusterContext& cluster, k8s::EventType type, absl::string_view reason,
                     absl::string_view note) {
  if (cluster.ref.has_value()) events_.Record(*cluster.ref, type, reason, "Sync", note);
}

absl::StatusOr<k8s::ReconcileResult> AuthStep::Sync(const ClusterContext& cluster,
                                                    ClusterOutcome& cluster_outcome) {
  AuthOutcome& outcome = cluster_outcome.auth;
  const absl::StatusOr<v1::SlurmCluster>& spec = cluster.spec;
  if (!spec.ok()) {
    // The config step reports the unreadable spec too; nothing to retry until it changes.
    outcome.error = std::string(spec.status().message());
    return k8s::ReconcileResult{};
  }
  outcome.munge_key_secret = AuthSecretOf(*spec, MungeKeyKind()).name;
  outcome.jwt_key_secret = AuthSecretOf(*spec, JwtKeyKind()).name;
  std::vector<std::string> problems;
  for (const AuthKeyKind* kind : {&MungeKeyKind(), &JwtKeyKind()}) {
    absl::StatusOr<SecretVerdict> verdict = EnsureSecret(cluster, *spec, *kind);
    if (absl::IsPermissionDenied(verdict.status())) {
      // Secrets are granted only in the namespaces SlurmClusters are meant to live in.
      outcome.error = absl::StrCat("cluster-controller may not read or create the Secrets of ",
                                   spec->metadata().namespace_(),
                                   " (add the namespace to the cluster-controller chart's "
                                   "clusterNamespaces): ",
                                   verdict.status().message());
      cluster_outcome.report_error = true;
      return verdict.status();  // retried
    }
    if (!verdict.ok()) return verdict.status();  // retried
    if (verdict->usable) continue;
    Event(cluster, k8s::EventType::kWarning, api::kAuthSecretInvalidReason, verdict->problem);
    problems.push_back(std::move(verdict->problem));
  }
  outcome.ready = problems.empty();
  outcome.error = absl::StrJoin(problems, "; ");
  if (outcome.ready) return k8s::ReconcileResult{};
  return k8s::ReconcileResult{.requeue_after = kSecretRecheck};
}

absl::StatusOr<SecretVerdict> AuthStep::EnsureSecret(const ClusterContext& cluster,
                                                     const v1::SlurmCluster& spec,
                                                     const AuthKeyKind& kind) {
  if (AuthSecretOf(spec, kind).generated) return EnsureGeneratedKey(cluster, spec, kind);
  return ReadUserSecret(spec, kind);
}

absl::StatusOr<SecretVerdict> AuthStep::ReadUserSecret(const v1::SlurmCluster& spec,
                                                       const AuthKeyKind& kind) {
  absl::StatusOr<std::string> secret =
      client_.Get(k8s::Secrets(), spec.metadata().namespace_(), AuthSecretOf(spec, kind).name);
  if (absl::IsNotFound(secret.status())) return MissingUserSecret(spec, kind);
  if (!secret.ok()) return secret.status();
  return CheckUserSecret(spec, kind, *secret);
}

absl::StatusOr<SecretVerdict> AuthStep::EnsureGeneratedKey(const ClusterContext& cluster,
                                                           const v1::SlurmCluster& spec,
                                                           const AuthKeyKind& kind) {
  const std::string name = AuthSecretOf(spec, kind).name;
  absl::StatusOr<GeneratedSecretResult> secret = EnsureGeneratedSecret(
      client_, field_manager_, spec.metadata().namespace_(), name,
      {.make_body = [&]() -> absl::StatusOr<std::string> {
         absl::StatusOr<std::string> key = RandomBytes(kind.generated_bytes);
         if (!key.ok()) return key.status();
         return GeneratedSecretBody(spec, kind, *key);
       },
       .check = [&](absl::string_view json) { return CheckGeneratedSecret(spec, kind, json); }});
  if (!secret.ok()) return secret.status();
  if (secret->created) {
    common::LogInfo("auth_secret_created",
                    {{"cluster", cluster.key}, {"secret", name}, {"key", kind.what}});
    Event(cluster, k8s::EventType::kNormal, api::kSecretCreatedReason,
          absl::StrCat("generated the ", kind.what, " in Secret ", name));
  }
  return secret->verdict;
}

}  // namespace tidepool::cluster

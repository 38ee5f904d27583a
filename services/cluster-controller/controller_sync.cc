#include "controller_sync.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "controller_builders.h"
#include "k8s/errors.h"
#include "tidepool/contract.h"
#include "tidepool/naming.h"

namespace tidepool::cluster {
namespace {

constexpr char kWaitingForAuthReason[] = "WaitingForAuth";
constexpr char kStateClaimUnfitReason[] = "StateClaimUnfit";

}  // namespace

ControllerStep::ControllerStep(k8s::Client& client, ClusterInformers informers,
                               k8s::EventRecorder& events, std::string field_manager,
                               std::string cluster_domain)
    : client_(client),
      informers_(informers),
      events_(events),
      applier_(client, std::move(field_manager)),
      cluster_domain_(std::move(cluster_domain)) {}

absl::Status ControllerStep::EnsureStateClaim(const v1::SlurmCluster& spec, int replicas) {
  const std::string& ns = spec.metadata().namespace_();
  const std::string name = api::ControllerStateClaimName(spec.metadata().name());
  k8s::CachedObjectPtr cached = informers_.claims->Get(absl::StrCat(ns, "/", name));
  if (cached != nullptr) return CheckStateClaimFits(cached->json, replicas);
  absl::StatusOr<std::string> created =
      client_.Create(k8s::PersistentVolumeClaims(), ns, ControllerStateClaimBody(spec));
  if (absl::IsAlreadyExists(created.status())) {
    // Not in the cache yet (or made by someone else): read it to check it.
    absl::StatusOr<std::string> existing = client_.Get(k8s::PersistentVolumeClaims(), ns, name);
    if (!existing.ok()) return existing.status();
    return CheckStateClaimFits(*existing, replicas);
  }
  if (!created.ok()) return created.status();
  common::LogInfo("state_claim_created", {{"namespace", ns}, {"claim", name}});
  return absl::OkStatus();
}

absl::StatusOr<k8s::ReconcileResult> ControllerStep::Sync(const ClusterContext& cluster,
                                                          ClusterOutcome& outcome) {
  ComponentOutcome& result = outcome.controller;
  result.managed = true;
  result.pod_selector = absl::StrCat(api::kComponentLabel, "=", api::kSlurmctldComponent, ",",
                                     api::kClusterLabel, "=", cluster.cluster->meta.name);
  if (!outcome.auth.ready) {
    result.blocked_reason = kWaitingForAuthReason;
    result.error = "slurmctld waits for the cluster's munge and JWT key Secrets";
    return k8s::ReconcileResult{};
  }
  const absl::StatusOr<v1::SlurmCluster>& spec = cluster.spec;
  absl::Status valid = spec.ok() ? ValidateControllerSpec(*spec) : spec.status();
  if (!valid.ok()) {
    result.blocked_reason = api::kInvalidSpecReason;
    result.error = std::string(valid.message());
    return k8s::ReconcileResult{};  // nothing to retry until the spec changes
  }
  const int replicas = *ControllerReplicas(*spec);
  if (absl::Status claim = EnsureStateClaim(*spec, replicas); !claim.ok()) {
    if (!absl::IsFailedPrecondition(claim)) return claim;
    result.blocked_reason = kStateClaimUnfitReason;
    result.error = std::string(claim.message());
    return k8s::ReconcileResult{};
  }
  const std::string& ns = spec->metadata().namespace_();
  const std::string name = api::ControllerName(spec->metadata().name());
  const ControllerInputs inputs{.cluster = &*spec,
                                .munge_key_secret = outcome.auth.munge_key_secret,
                                .jwt_key_secret = outcome.auth.jwt_key_secret,
                                .cluster_domain = cluster_domain_};
  absl::StatusOr<bool> wrote = applier_.ApplyAll(
      ns,
      {{&k8s::Services(), informers_.services, api::ComputeServiceName(spec->metadata().name()),
        ComputeServiceBody(*spec)},
       {&k8s::Services(), informers_.services, name, ControllerServiceBody(*spec)},
       {&k8s::PodDisruptionBudgets(), informers_.disruption_budgets, name,
        ControllerDisruptionBudgetBody(*spec)},
       {&k8s::StatefulSets(), informers_.stateful_sets, name, ControllerStatefulSetBody(inputs)}});
  if (absl::IsInvalidArgument(wrote.status())) {
    // A field passed through from the spec (resources) the API server refuses.
    result.blocked_reason = api::kInvalidSpecReason;
    result.error = std::string(wrote.status().message());
    return k8s::ReconcileResult{};
  }
  if (!wrote.ok()) return wrote.status();
  if (*wrote && cluster.ref.has_value()) {
    events_.Record(*cluster.ref, k8s::EventType::kNormal, api::kControllerAppliedReason, "Apply",
                   absl::StrCat("applied slurmctld StatefulSet ", name, " with ", replicas,
                                replicas == 1 ? " replica" : " replicas"));
  }
  result.applied = true;
  result.replicas = replicas;
  if (k8s::CachedObjectPtr set = informers_.stateful_sets->Get(absl::StrCat(ns, "/", name))) {
    result.ready_replicas = ReadStatefulSetReadiness(set->json).ready_replicas;
  }
  return k8s::ReconcileResult{};
}

}  // namespace tidepool::cluster

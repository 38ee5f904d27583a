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

constexpr char kStateClaimUnfitReason[] = "StateClaimUnfit";

}  // namespace

ControllerStep::ControllerStep(k8s::Client& client, ClusterInformers informers,
                               k8s::EventRecorder& events, std::string field_manager,
                               std::string cluster_domain)
    : ComponentStep(client, events, std::move(field_manager)),
      informers_(informers),
      cluster_domain_(std::move(cluster_domain)) {}

const char* ControllerStep::component() const { return api::kSlurmctldComponent; }
const char* ControllerStep::applied_reason() const { return api::kControllerAppliedReason; }

absl::Status ControllerStep::Validate(const v1::SlurmCluster& spec) const {
  return ValidateControllerSpec(spec);
}

std::vector<OwnedName> ControllerStep::Owns(const v1::SlurmCluster& spec) const {
  const std::string name = api::ControllerName(spec.metadata().name());
  // Not the state claim: it keeps slurmctld's state.
  return {{&k8s::Services(), informers_.services, api::ComputeServiceName(spec.metadata().name())},
          {&k8s::Services(), informers_.services, name},
          {&k8s::PodDisruptionBudgets(), informers_.disruption_budgets, name},
          {&k8s::PodDisruptionBudgets(), informers_.disruption_budgets,
           api::ComputeServiceName(spec.metadata().name())},
          {&k8s::StatefulSets(), informers_.stateful_sets, name}};
}

absl::Status ControllerStep::EnsureStateClaim(const v1::SlurmCluster& spec, int replicas) {
  const std::string& ns = spec.metadata().namespace_();
  const std::string name = api::ControllerStateClaimName(spec.metadata().name());
  k8s::CachedObjectPtr cached = informers_.claims->Get(absl::StrCat(ns, "/", name));
  if (cached != nullptr) return CheckStateClaimFits(cached->json, replicas);
  absl::StatusOr<std::string> created =
      client().Create(k8s::PersistentVolumeClaims(), ns, ControllerStateClaimBody(spec));
  if (absl::IsAlreadyExists(created.status())) {
    // Not in the cache yet (or made by someone else): read it to check it.
    absl::StatusOr<std::string> existing = client().Get(k8s::PersistentVolumeClaims(), ns, name);
    if (!existing.ok()) return existing.status();
    return CheckStateClaimFits(*existing, replicas);
  }
  if (!created.ok()) return created.status();
  common::LogInfo("state_claim_created", {{"namespace", ns}, {"claim", name}});
  return absl::OkStatus();
}

absl::StatusOr<ComponentPlan> ControllerStep::Plan(const v1::SlurmCluster& spec,
                                                   const ClusterOutcome& outcome) {
  const int replicas = *ControllerReplicas(spec);
  if (absl::Status claim = EnsureStateClaim(spec, replicas); !claim.ok()) {
    if (!absl::IsFailedPrecondition(claim)) return claim;
    return Blocked(kStateClaimUnfitReason, std::string(claim.message()));
  }
  const std::string name = api::ControllerName(spec.metadata().name());
  const ControllerInputs inputs{.cluster = &spec,
                                .munge_key_secret = outcome.auth.munge_key_secret,
                                .jwt_key_secret = outcome.auth.jwt_key_secret,
                                .cluster_domain = cluster_domain_};
  return ComponentPlan{
      .objects = {{&k8s::Services(), informers_.services,
                   api::ComputeServiceName(spec.metadata().name()), ComputeServiceBody(spec)},
                  {&k8s::Services(), informers_.services, name, ControllerServiceBody(spec)},
                  {&k8s::PodDisruptionBudgets(), informers_.disruption_budgets, name,
                   ControllerDisruptionBudgetBody(spec)},
                  {&k8s::PodDisruptionBudgets(), informers_.disruption_budgets,
                   api::ComputeServiceName(spec.metadata().name()),
                   ComputeDisruptionBudgetBody(spec)},
                  {&k8s::StatefulSets(), informers_.stateful_sets, name,
                   ControllerStatefulSetBody(inputs)}},
      .replicas = replicas,
      .workload_cache = informers_.stateful_sets,
      .workload_name = name,
      .ready_replicas_of = &ReadyReplicasOfStatefulSet,
      .description = absl::StrCat("slurmctld StatefulSet ", name)};
}

std::vector<DataClaim> ControllerStep::DataClaims(const v1::SlurmCluster& spec) const {
  return {{.wanted = WantedStateClaim(spec), .cache = informers_.claims}};
}

}  // namespace tidepool::cluster

#include "teardown.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/log.h"
#include "k8s/errors.h"
#include "k8s/object_json.h"
#include "k8s/ownership.h"
#include "k8s/resource.h"
#include "teardown_status.h"
#include "tidepool/contract.h"
#include "tidepool/naming.h"
#include "tidepool/resource_types.h"

namespace tidepool::cluster {
namespace {

std::string ClusterSelector(const ClusterContext& cluster) {
  return absl::StrCat(api::kClusterLabel, "=", cluster.cluster->meta.name);
}

std::string ComponentOf(const k8s::ObjectMeta& meta) {
  auto it = meta.labels.find(api::kComponentLabel);
  return it != meta.labels.end() ? it->second : "";
}

}  // namespace

ClusterTeardown::ClusterTeardown(k8s::Client& client, k8s::EventRecorder& events,
                                 common::Clock* clock, std::string field_manager,
                                 absl::Duration poll)
    : client_(client),
      events_(events),
      clock_(clock),
      field_manager_(std::move(field_manager)),
      poll_(poll) {}

absl::Status ClusterTeardown::EnsureFinalizer(const ClusterContext& cluster) {
  const k8s::CachedObject& object = *cluster.cluster;
  absl::StatusOr<std::optional<std::string>> patch =
      k8s::AddFinalizerPatch(object.json, api::kTeardownFinalizer);
  if (!patch.ok()) return patch.status();
  if (!patch->has_value()) return absl::OkStatus();
  // Conditional on the cached resourceVersion: a stale cache is a conflict, retried.
  absl::StatusOr<std::string> written =
      client_.MergePatch(api::SlurmClusters(), object.meta.ns, object.meta.name, **patch,
                         {.field_manager = field_manager_});
  if (!written.ok()) return written.status();
  common::LogInfo("finalizer_added",
                  {{"cluster", cluster.key}, {"finalizer", api::kTeardownFinalizer}});
  return absl::OkStatus();
}

absl::StatusOr<k8s::ReconcileResult> ClusterTeardown::Advance(const ClusterContext& cluster) {
  if (!k8s::HasFinalizer(cluster.cluster->json, api::kTeardownFinalizer)) {
    return k8s::ReconcileResult{};  // not ours to hold (or already done)
  }
  absl::StatusOr<TeardownObservation> observed = Observe(cluster);
  if (!observed.ok()) return observed.status();
  const TeardownDecision decision = NextTeardownAction(*observed);
  switch (decision.action) {
    case TeardownAction::kDeleteWorkloads:
      if (absl::Status s = DeleteWorkloads(cluster, decision); !s.ok()) return s;
      break;
    case TeardownAction::kWaitForPods:
      break;
    case TeardownAction::kDeleteClaims:
      if (absl::Status s = DeleteClaims(cluster, decision); !s.ok()) return s;
      break;
    case TeardownAction::kRemoveFinalizer:
      if (absl::Status s = RemoveFinalizer(cluster); !s.ok()) return s;
      return k8s::ReconcileResult{};
  }
  if (absl::Status s = WriteWaiting(cluster, decision); !s.ok()) return s;
  return k8s::ReconcileResult{.requeue_after = poll_};
}

absl::StatusOr<TeardownObservation> ClusterTeardown::Observe(const ClusterContext& cluster) {
  const std::string& ns = cluster.cluster->meta.ns;
  const k8s::ListOptions by_cluster{.label_selector = ClusterSelector(cluster)};
  TeardownObservation observed;
  for (const auto& [type, kind] : {std::pair{&k8s::StatefulSets(), "StatefulSet"},
                                   std::pair{&k8s::Deployments(), "Deployment"}}) {
    absl::StatusOr<k8s::ListResult> listed = client_.ListAll(*type, ns, by_cluster);
    if (!listed.ok()) return listed.status();
    for (const std::string& item : listed->items) {
      absl::StatusOr<k8s::ObjectMeta> meta = k8s::ParseObjectMeta(item);
      if (!meta.ok()) continue;
      observed.workloads.push_back({.kind = kind,
                                    .name = meta->name,
                                    .component = ComponentOf(*meta),
                                    .deleting = meta->deleting});
    }
  }
  absl::StatusOr<k8s::ListResult> pods = client_.ListAll(k8s::Pods(), ns, by_cluster);
  if (!pods.ok()) return pods.status();
  for (const std::string& item : pods->items) {
    absl::StatusOr<k8s::ObjectMeta> meta = k8s::ParseObjectMeta(item);
    if (meta.ok()) observed.pods.push_back({.name = meta->name, .component = ComponentOf(*meta)});
  }
  observed.delete_claims =
      DeleteClaimsRequested(k8s::AnnotationOf(cluster.cluster->json, api::kDeleteClaimsAnnotation));
  if (!observed.delete_claims) return observed;
  absl::StatusOr<k8s::ListResult> claims =
      client_.ListAll(k8s::PersistentVolumeClaims(), ns, by_cluster);
  if (!claims.ok()) return claims.status();
  const std::string state_claim = api::ControllerStateClaimName(cluster.cluster->meta.name);
  bool state_claim_listed = false;
  for (const std::string& item : claims->items) {
    absl::StatusOr<k8s::ObjectMeta> meta = k8s::ParseObjectMeta(item);
    if (!meta.ok() || meta->deleting) continue;
    state_claim_listed = state_claim_listed || meta->name == state_claim;
    observed.claims.push_back(meta->name);
  }
  if (!state_claim_listed) {
    // The state claim by its name too, should someone have removed its labels.
    absl::StatusOr<std::string> claim = client_.Get(k8s::PersistentVolumeClaims(), ns, state_claim);
    if (claim.ok()) {
      absl::StatusOr<k8s::ObjectMeta> meta = k8s::ParseObjectMeta(*claim);
      if (meta.ok() && !meta->deleting) observed.claims.push_back(state_claim);
    } else if (!absl::IsNotFound(claim.status())) {
      return claim.status();
    }
  }
  return observed;
}

absl::Status ClusterTeardown::DeleteWorkloads(const ClusterContext& cluster,
                                              const TeardownDecision& decision) {
  const std::string& ns = cluster.cluster->meta.ns;
  std::vector<std::string> names;
  for (const TeardownWorkload& workload : decision.workloads) {
    const k8s::ResourceType& type =
        workload.kind == "StatefulSet" ? k8s::StatefulSets() : k8s::Deployments();
    // Foreground: the workload stays (deleting) until its pods are gone, so the next pass
    // sees the stage in progress even before the pods show a deletionTimestamp.
    absl::StatusOr<std::string> deleted =
        client_.Delete(type, ns, workload.name, {.propagation_policy = "Foreground"});
    if (!deleted.ok() && !absl::IsNotFound(deleted.status())) return deleted.status();
    names.push_back(absl::StrCat(workload.kind, " ", workload.name));
  }
  Event(cluster, api::kStoppingComponentReason,
        absl::StrCat("teardown: stopping ", decision.stage, " (deleted ",
                     absl::StrJoin(names, ", "), ")"));
  return absl::OkStatus();
}

absl::Status ClusterTeardown::DeleteClaims(const ClusterContext& cluster,
                                           const TeardownDecision& decision) {
  const std::string& ns = cluster.cluster->meta.ns;
  for (const std::string& claim : decision.claims) {
    absl::StatusOr<std::string> deleted = client_.Delete(k8s::PersistentVolumeClaims(), ns, claim);
    if (!deleted.ok() && !absl::IsNotFound(deleted.status())) return deleted.status();
  }
  Event(cluster, api::kClaimsDeletedReason,
        absl::StrCat("teardown: deleted claims ", absl::StrJoin(decision.claims, ", "), " (",
                     api::kDeleteClaimsAnnotation, ")"));
  return absl::OkStatus();
}

absl::Status ClusterTeardown::RemoveFinalizer(const ClusterContext& cluster) {
  const k8s::CachedObject& object = *cluster.cluster;
  absl::StatusOr<std::optional<std::string>> patch =
      k8s::RemoveFinalizerPatch(object.json, api::kTeardownFinalizer);
  if (!patch.ok()) return patch.status();
  if (!patch->has_value()) return absl::OkStatus();
  absl::StatusOr<std::string> written =
      client_.MergePatch(api::SlurmClusters(), object.meta.ns, object.meta.name, **patch,
                         {.field_manager = field_manager_});
  if (!written.ok() && !absl::IsNotFound(written.status())) return written.status();
  Event(cluster, api::kTeardownCompleteReason,
        "teardown: every daemon stopped in order; finalizer removed");
  return absl::OkStatus();
}

absl::Status ClusterTeardown::WriteWaiting(const ClusterContext& cluster,
                                           const TeardownDecision& decision) {
  const std::string patch = TeardownStatusPatch(
      cluster.status, TerminatingCondition(decision.waiting_for, cluster.cluster->meta.generation),
      clock_->Now());
  if (patch.empty()) return absl::OkStatus();
  const k8s::CachedObject& object = *cluster.cluster;
  absl::StatusOr<std::string> written =
      client_.MergePatch(api::SlurmClusters(), object.meta.ns, object.meta.name, patch,
                         {.field_manager = field_manager_}, "status");
  if (!written.ok() && !absl::IsNotFound(written.status())) return written.status();
  return absl::OkStatus();
}

void ClusterTeardown::Event(const ClusterContext& cluster, absl::string_view reason,
                            absl::string_view note) {
  if (cluster.ref.has_value()) {
    events_.Record(*cluster.ref, k8s::EventType::kNormal, reason, "Delete", note);
  }
  common::LogInfo("cluster_teardown",
                  {{"cluster", cluster.key}, {"reason", reason}, {"note", note}});
}

}  // namespace tidepool::cluster

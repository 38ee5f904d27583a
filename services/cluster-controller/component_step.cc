#include "component_step.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/log.h"
#include "component_removal.h"
#include "k8s/object_json.h"
#include "k8s/resource.h"
#include "tidepool/contract.h"

namespace tidepool::cluster {
namespace {

constexpr char kWaitingForAuthReason[] = "WaitingForAuth";

int StatusInt(absl::string_view json, const char* kind, const char* member) {
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(json, kind);
  if (!doc.ok()) return 0;
  const rapidjson::Value* status = k8s::FindMember(*doc, "status");
  return status != nullptr ? static_cast<int>(k8s::IntMember(*status, member)) : 0;
}

}  // namespace

ComponentPlan Blocked(std::string reason, std::string message, absl::Duration recheck_after) {
  return {.blocked_reason = std::move(reason),
          .blocked_message = std::move(message),
          .recheck_after = recheck_after};
}

int ReadyReplicasOfStatefulSet(absl::string_view stateful_set_json) {
  return StatusInt(stateful_set_json, "StatefulSet", "readyReplicas");
}

int AvailableReplicasOfDeployment(absl::string_view deployment_json) {
  return StatusInt(deployment_json, "Deployment", "availableReplicas");
}

ComponentStep::ComponentStep(k8s::Client& client, k8s::EventRecorder& events,
                             std::string field_manager)
    : client_(client), events_(events), applier_(client, std::move(field_manager)) {}

absl::StatusOr<k8s::ReconcileResult> ComponentStep::Sync(const ClusterContext& cluster,
                                                         ClusterOutcome& outcome) {
  const absl::StatusOr<v1::SlurmCluster>& spec = cluster.spec;
  if (spec.ok() && !Wanted(*spec)) return RemoveUnwanted(cluster, *spec);
  absl::Duration claims_retry = absl::ZeroDuration();
  if (spec.ok() && Validate(*spec).ok()) {
    claims_retry = FollowDataClaims(cluster, *spec, outcome);
  } else if (KeepsData()) {
    outcome.storage_unchecked = true;
  }
  absl::StatusOr<k8s::ReconcileResult> result = SyncWanted(cluster, outcome);
  if (result.ok() && claims_retry > absl::ZeroDuration()) {
    absl::Duration& after = result->requeue_after;
    after = after > absl::ZeroDuration() ? std::min(after, claims_retry) : claims_retry;
  }
  return result;
}

absl::Duration ComponentStep::FollowDataClaims(const ClusterContext& cluster,
                                               const v1::SlurmCluster& spec,
                                               ClusterOutcome& outcome) {
  const std::string& ns = spec.metadata().namespace_();
  absl::Duration retry = absl::ZeroDuration();
  for (const DataClaim& claim : DataClaims(spec)) {
    std::string json;
    if (k8s::CachedObjectPtr cached = claim.cache->Get(absl::StrCat(ns, "/", claim.wanted.name))) {
      json = cached->json;
    } else {
      // Not cached: not made yet (then as the spec asks), or made without our labels.
      absl::StatusOr<std::string> read =
          client_.Get(k8s::PersistentVolumeClaims(), ns, claim.wanted.name);
      if (absl::IsNotFound(read.status())) continue;
      if (!read.ok()) {
        outcome.storage.push_back(
            {.reason = "ClaimReadFailed",
             .message = absl::StrCat("reading PersistentVolumeClaim ", claim.wanted.name, ": ",
                                     read.status().message())});
        retry = kClaimResizeRetry;
        continue;
      }
      json = *std::move(read);
    }
    ClaimFollowed followed = FollowClaim(client_, ns, json, claim.wanted, refused_resizes_);
    if (followed.retry) retry = kClaimResizeRetry;
    if (followed.note.has_value()) outcome.storage.push_back(*std::move(followed.note));
    if (!followed.grown.empty() && cluster.ref.has_value()) {
      events_.Record(*cluster.ref, k8s::EventType::kNormal, api::kClaimResizeRequestedReason,
                     "Resize", absl::StrCat("asked to grow ", followed.grown));
    }
  }
  return retry;
}

absl::StatusOr<k8s::ReconcileResult> ComponentStep::SyncWanted(const ClusterContext& cluster,
                                                               ClusterOutcome& outcome) {
  const absl::StatusOr<v1::SlurmCluster>& spec = cluster.spec;
  ComponentOutcome& result = OutcomeOf(outcome);
  result.managed = true;
  result.pod_selector = absl::StrCat(api::kComponentLabel, "=", component(), ",",
                                     api::kClusterLabel, "=", cluster.cluster->meta.name);
  if (!outcome.auth.ready) {
    result.blocked_reason = kWaitingForAuthReason;
    result.error = absl::StrCat(component(), " waits for the cluster's munge and JWT key Secrets");
    return k8s::ReconcileResult{};
  }
  const absl::Status valid = spec.ok() ? Validate(*spec) : spec.status();
  if (!valid.ok()) {
    result.blocked_reason = api::kInvalidSpecReason;
    result.error = std::string(valid.message());
    return k8s::ReconcileResult{};  // nothing to retry until the spec changes
  }
  absl::StatusOr<ComponentPlan> plan = Plan(*spec, outcome);
  if (!plan.ok()) return plan.status();
  if (!plan->blocked_reason.empty()) {
    result.blocked_reason = std::move(plan->blocked_reason);
    result.error = std::move(plan->blocked_message);
    return k8s::ReconcileResult{.requeue_after = plan->recheck_after};
  }
  if (absl::Status listed = CheckOwned(*spec, plan->objects); !listed.ok()) return listed;
  const std::string& ns = spec->metadata().namespace_();
  absl::StatusOr<bool> wrote = applier_.ApplyAll(ns, plan->objects);
  if (absl::IsInvalidArgument(wrote.status())) {
    // A field passed through from the spec (resources) the API server refuses.
    result.blocked_reason = api::kInvalidSpecReason;
    result.error = std::string(wrote.status().message());
    return k8s::ReconcileResult{};
  }
  if (!wrote.ok()) {
    // Refused for a reason outside the spec (a quota, an admission webhook): said in the
    // status, and retried with backoff.
    result.blocked_reason = api::kApplyFailedReason;
    result.error = absl::StrCat("applying ", plan->description, ": ", wrote.status().message());
    outcome.report_error = true;
    return wrote.status();
  }
  result.applied = true;
  result.replicas = plan->replicas;
  if (*wrote && cluster.ref.has_value()) {
    events_.Record(*cluster.ref, k8s::EventType::kNormal, applied_reason(), "Apply",
                   absl::StrCat("applied ", plan->description, " with ", plan->replicas,
                                plan->replicas == 1 ? " replica" : " replicas"));
    common::LogInfo(
        "component_applied",
        {{"cluster", cluster.key}, {"component", component()}, {"replicas", plan->replicas}});
  }
  if (plan->workload_cache != nullptr && plan->ready_replicas_of != nullptr) {
    if (k8s::CachedObjectPtr workload =
            plan->workload_cache->Get(absl::StrCat(ns, "/", plan->workload_name))) {
      result.ready_replicas = plan->ready_replicas_of(workload->json);
    }
  }
  return k8s::ReconcileResult{.requeue_after = plan->recheck_after};
}

absl::StatusOr<k8s::ReconcileResult> ComponentStep::RemoveUnwanted(const ClusterContext& cluster,
                                                                   const v1::SlurmCluster& spec) {
  const std::string& ns = spec.metadata().namespace_();
  std::vector<CachedOwnedObject> cached;
  // Only what the caches hold: a cluster that never had the component costs no call.
  for (const OwnedName& owned : Owns(spec)) {
    k8s::CachedObjectPtr object = owned.cache->Get(absl::StrCat(ns, "/", owned.name));
    cached.push_back(
        {.type = owned.type, .name = owned.name, .json = object != nullptr ? object->json : ""});
  }
  const RemovalDecision decision = ObjectsToRemove(cached, spec.metadata().uid());
  for (const std::string& object : decision.not_ours) {
    common::LogDebug("component_object_not_ours",
                     {{"cluster", cluster.key}, {"component", component()}, {"object", object}});
  }
  std::vector<std::string> removed;
  for (const ObjectRemoval& removal : decision.remove) {
    absl::Status deleted =
        client_.Delete(*removal.type, ns, removal.name, {.precondition_uid = removal.uid}).status();
    // Gone already (a cache a moment behind the delete): nothing new to tell.
    if (absl::IsNotFound(deleted)) continue;
    if (!deleted.ok()) return deleted;
    removed.push_back(ObjectLabel(*removal.type, removal.name));
  }
  if (removed.empty()) return k8s::ReconcileResult{};
  const std::string objects = absl::StrJoin(removed, ", ");
  if (cluster.ref.has_value()) {
    events_.Record(*cluster.ref, k8s::EventType::kNormal, api::kComponentRemovedReason, "Delete",
                   absl::StrCat("removed ", component(), " (", objects,
                                "): the spec no longer asks for it; its Secrets and claims are "
                                "kept"));
  }
  common::LogInfo("component_removed",
                  {{"cluster", cluster.key}, {"component", component()}, {"objects", objects}});
  return k8s::ReconcileResult{};
}

absl::Status ComponentStep::CheckOwned(const v1::SlurmCluster& spec,
                                       const std::vector<OwnedObject>& objects) const {
  const std::vector<OwnedName> owned = Owns(spec);
  for (const OwnedObject& object : objects) {
    bool listed = false;
    for (const OwnedName& name : owned) {
      listed = listed || (name.type == object.type && name.name == object.name);
    }
    if (!listed) {
      return absl::InternalError(absl::StrCat(
          component(), " applies ", ObjectLabel(*object.type, object.name),
          " but its Owns() does not list it: it would stay behind when the component is removed"));
    }
  }
  return absl::OkStatus();
}

}  // namespace tidepool::cluster

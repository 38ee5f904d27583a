#include "sync.h"

#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cluster_view.h"
#include "common/log.h"
#include "decide.h"
#include "job_identity.h"
#include "pod_writes.h"
#include "scheduled_pod.h"
#include "tidepool/contract.h"
#include "tidepool/resources.h"

namespace tidepool::podsched {
namespace {

constexpr absl::Duration kWaitForNodeRequeue = absl::Seconds(5);

// The cluster's NodeSets and slurmd pods, read from the caches.
ClusterView ObserveCluster(const SyncContext& c) {
  std::vector<tidepool::v1::NodeSet> node_sets;
  for (const k8s::CachedObjectPtr& object : c.informers.node_sets->List()) {
    absl::StatusOr<tidepool::v1::NodeSet> node_set = api::ParseNodeSet(object->json);
    if (node_set.ok()) node_sets.push_back(*std::move(node_set));
  }
  std::vector<api::PodView> slurmd;
  for (const k8s::CachedObjectPtr& object : c.informers.slurmd_pods->List()) {
    absl::StatusOr<api::PodView> pod = api::PodViewOf(*object);
    if (pod.ok()) slurmd.push_back(*std::move(pod));
  }
  return BuildClusterView(c.cluster_namespace, c.cluster_name, node_sets, slurmd);
}

k8s::ObjectReference PodReference(const api::PodView& pod) {
  return {.api_version = "v1", .kind = "Pod", .ns = pod.ns, .name = pod.name, .uid = pod.uid};
}

class Executor {
 public:
  Executor(const SyncContext& c, const std::string& key, const ScheduledPod* pod)
      : c_(c), key_(key), pod_(pod) {}

  // The first failure is returned (the key is retried with backoff); later actions of
  // the same decision still run when they do not depend on it.
  absl::Status Run(const Action& action) {
    switch (action.kind) {
      case Action::Kind::kSubmit:
        return Submit(action);
      case Action::Kind::kAnnotateJobId:
        return Count("annotate", AnnotateJobId(*c_.client, pod_->pod, action.job_id));
      case Action::Kind::kBind:
        return Bind(action);
      case Action::Kind::kDeletePod:
        return Delete(action);
      case Action::Kind::kCancelJob:
        return Cancel(action);
      case Action::Kind::kMarkUnschedulable:
        return MarkInvalid(action);
      case Action::Kind::kWaitForNode:
        Event(k8s::EventType::kWarning, "WaitingForNode", "Bind", action.message);
        wait_ = true;
        return absl::OkStatus();
    }
    return absl::OkStatus();
  }

  bool wait() const { return wait_; }

 private:
  absl::Status Count(absl::string_view kind, absl::Status status) {
    if (!status.ok()) c_.metrics->CountError(kind);
    return status;
  }

  void Event(k8s::EventType type, absl::string_view reason, absl::string_view action,
             absl::string_view note) {
    if (pod_ == nullptr) return;
    c_.events->Record(PodReference(pod_->pod), type, reason, action, note);
  }

  absl::Status Submit(const Action& action) {
    absl::StatusOr<uint32_t> id = c_.syncer->Submit(action.spec);
    if (!id.ok()) {
      c_.metrics->CountError("submit");
      Event(k8s::EventType::kWarning, api::kFailedSubmitReason, "Submit",
            absl::StrCat("submitting the placeholder job: ", id.status().message()));
      return id.status();
    }
    tidepool::v1::SlurmJob job;
    job.set_job_id(*id);
    job.set_name(action.spec.name());
    job.set_comment(action.spec.comment());
    job.add_states("PENDING");
    c_.jobs->NoteSubmitted(key_, job);
    c_.metrics->CountSubmitted();
    common::LogInfo("job_submitted", {{"pod", key_}, {"job_id", static_cast<int64_t>(*id)}});
    Event(k8s::EventType::kNormal, api::kJobSubmittedReason, "Submit",
          absl::StrCat("submitted Slurm job ", *id, " (", action.spec.cpus_per_task(), " CPUs",
                       action.spec.tres_per_node().empty() ? "" : ", ", action.spec.tres_per_node(),
                       ")"));
    return Count("annotate", AnnotateJobId(*c_.client, pod_->pod, *id));
  }

  absl::Status Bind(const Action& action) {
    absl::Status bound = BindPod(*c_.client, pod_->pod, action.node);
    if (!bound.ok()) {
      c_.metrics->CountError("bind");
      Event(k8s::EventType::kWarning, api::kFailedBindReason, "Bind",
            absl::StrCat("binding to ", action.node, ": ", bound.message()));
      return bound;
    }
    c_.metrics->ObserveBind(absl::ToDoubleSeconds(c_.clock->Now() - pod_->created));
    common::LogInfo(
        "pod_bound",
        {{"pod", key_}, {"node", action.node}, {"job_id", static_cast<int64_t>(action.job_id)}});
    Event(k8s::EventType::kNormal, api::kBoundReason, "Bind",
          absl::StrCat("bound to ", action.node, " where Slurm started job ", action.job_id));
    return absl::OkStatus();
  }

  absl::Status Delete(const Action& action) {
    Event(k8s::EventType::kNormal, action.reason, "Delete",
          absl::StrCat(action.message, "; deleting the pod"));
    absl::Status deleted = DeletePod(*c_.client, pod_->pod);
    if (!deleted.ok()) return Count("delete", deleted);
    c_.metrics->CountPodDeleted();
    common::LogInfo("pod_deleted", {{"pod", key_}, {"why", action.message}});
    return absl::OkStatus();
  }

  absl::Status Cancel(const Action& action) {
    absl::Status cancelled = c_.syncer->Cancel(action.job_id);
    if (!cancelled.ok() && !absl::IsNotFound(cancelled)) return Count("cancel", cancelled);
    c_.metrics->CountCancelled();
    common::LogInfo(
        "job_cancelled",
        {{"pod", key_}, {"job_id", static_cast<int64_t>(action.job_id)}, {"why", action.message}});
    Event(k8s::EventType::kNormal, action.reason, "Cancel", action.message);
    return absl::OkStatus();
  }

  absl::Status MarkInvalid(const Action& action) {
    c_.metrics->CountError("invalid_placement");
    Event(k8s::EventType::kWarning, action.reason, "Submit",
          absl::StrCat("no Slurm job: ", action.message));
    return Count("status", MarkUnschedulable(*c_.client, pod_->pod, action.reason, action.message,
                                             c_.clock->Now()));
  }

  const SyncContext& c_;
  const std::string& key_;
  const ScheduledPod* pod_;
  bool wait_ = false;
};

}  // namespace

std::string PodSync::SchedulerName() {
  k8s::CachedObjectPtr object =
      context_.informers.clusters->Get(context_.cluster_namespace, context_.cluster_name);
  if (object == nullptr) return "";
  absl::StatusOr<tidepool::v1::SlurmCluster> cluster = api::ParseSlurmCluster(object->json);
  if (!cluster.ok() || !cluster->spec().pod_scheduler().enabled()) return "";
  const std::string& name = cluster->spec().pod_scheduler().scheduler_name();
  return name.empty() ? api::kDefaultPodSchedulerName : name;
}

absl::StatusOr<k8s::ReconcileResult> PodSync::Reconcile(const std::string& key) {
  const std::string scheduler = SchedulerName();
  if (scheduler.empty()) return k8s::ReconcileResult{};  // disabled: touch nothing
  std::optional<ScheduledPod> pod;
  if (k8s::CachedObjectPtr object = context_.informers.pods->Get(key)) {
    absl::StatusOr<ScheduledPod> parsed = ScheduledPodOf(*object);
    if (parsed.ok() && parsed->scheduler_name == scheduler) pod = *std::move(parsed);
  }
  const DecisionInput input{.pod = pod.has_value() ? &*pod : nullptr,
                            .jobs = context_.jobs->JobsOf(key),
                            .jobs_view_fresh = context_.jobs->fresh()};
  if (input.pod == nullptr && input.jobs.empty()) return k8s::ReconcileResult{};
  Executor executor(context_, key, input.pod);
  absl::Status first = absl::OkStatus();
  for (const Action& action : Decide(input, ObserveCluster(context_))) {
    first.Update(executor.Run(action));
  }
  if (!first.ok()) return first;
  if (executor.wait()) return k8s::ReconcileResult{.requeue_after = kWaitForNodeRequeue};
  return k8s::ReconcileResult{};
}

void PodSync::UpdatePodGauges() {
  const std::string scheduler = SchedulerName();
  int pending = 0;
  int bound = 0;
  for (const k8s::CachedObjectPtr& object : context_.informers.pods->List()) {
    const ScheduledPod* pod = object->ViewAs<ScheduledPod>();
    if (pod == nullptr || pod->scheduler_name != scheduler || pod->pod.deleting) continue;
    (pod->pod.node_name.empty() ? pending : bound) += 1;
  }
  context_.metrics->SetPods(pending, bound);
}

}  // namespace tidepool::podsched

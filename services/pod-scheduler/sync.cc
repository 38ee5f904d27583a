#include "sync.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cluster_view.h"
#include "common/log.h"
#include "decide.h"
#include "decide_group.h"
#include "job_facts.h"
#include "job_identity.h"
#include "pod_group.h"
#include "pod_writes.h"
#include "recorded_group.h"
#include "scheduled_pod.h"
#include "scheduler_name.h"
#include "tidepool/contract.h"
#include "tidepool/resources.h"

namespace tidepool::podsched {
namespace {

constexpr absl::Duration kWaitForNodeRequeue = absl::Seconds(5);
// Longer than slurm-syncer takes to publish a job it submitted (its next poll) and than a
// few polls, so neither a trailing view nor one bad reply deletes a pod.
constexpr absl::Duration kConfirmJobMissingFor = absl::Seconds(10);
// A submission without an answer: how long its job may take to show on the job watch
// before the pod submits again (a few of the syncer's polls).
constexpr absl::Duration kWaitForDoubtfulJob = absl::Seconds(10);

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
  ClusterView view = BuildClusterView(c.cluster_namespace, c.cluster_name, node_sets, slurmd);
  if (k8s::CachedObjectPtr object =
          c.informers.clusters->Get(c.cluster_namespace, c.cluster_name)) {
    absl::StatusOr<tidepool::v1::SlurmCluster> cluster = api::ParseSlurmCluster(object->json);
    if (cluster.ok()) {
      const auto& rules = cluster->spec().pod_scheduler().placement_policy();
      view.placement_policy = PlacementPolicy(c.cluster_name, {rules.begin(), rules.end()});
    }
  }
  return view;
}

k8s::ObjectReference PodReference(const api::PodView& pod) {
  return {.api_version = "v1", .kind = "Pod", .ns = pod.ns, .name = pod.name, .uid = pod.uid};
}

class Executor {
 public:
  // `pods`: the pods the actions may name (a single pod, or a group's members; an action
  // with an empty Action::pod means the first). `key` is the sync key, for logs.
  Executor(const SyncContext& c, RecentWrites& written, MissingJobs& missing,
           DoubtfulSubmits& doubtful, const std::string& key, std::vector<const ScheduledPod*> pods)
      : c_(c),
        written_(written),
        missing_(missing),
        doubtful_(doubtful),
        key_(key),
        pods_(std::move(pods)) {}

  // The failure is returned (the key is retried with backoff); the caller runs the other
  // actions of the decision anyway when they do not depend on it.
  absl::Status Run(const Action& action) {
    const ScheduledPod* pod = PodFor(action);
    const bool needs_pod =
        action.kind != Action::Kind::kSubmit && action.kind != Action::Kind::kCancelJob;
    if (needs_pod && pod == nullptr) {
      return absl::InternalError(absl::StrCat("no pod \"", action.pod, "\" for ", key_));
    }
    switch (action.kind) {
      case Action::Kind::kSubmit:
        return Submit(action);
      case Action::Kind::kAnnotateJobId:
        return Count("annotate",
                     AnnotateJobId(*c_.client, pod->pod, action.job_id, c_.ClusterKey()));
      case Action::Kind::kBind:
        return Bind(*pod, action);
      case Action::Kind::kDeletePod:
        return Delete(*pod, action);
      case Action::Kind::kCancelJob:
        return Cancel(action);
      case Action::Kind::kMarkUnschedulable:
        return MarkInvalid(*pod, action);
      case Action::Kind::kWaitForNode:
        Event(pod, k8s::EventType::kWarning, "WaitingForNode", "Bind", action.message);
        RequeueAfter(kWaitForNodeRequeue);
        return absl::OkStatus();
    }
    return absl::OkStatus();
  }

  // When the key should be synced again though nothing changes; none: only on changes.
  std::optional<absl::Duration> requeue_after() const { return requeue_after_; }

 private:
  const ScheduledPod* PodFor(const Action& action) const {
    for (const ScheduledPod* pod : pods_) {
      if (action.pod.empty() || pod->pod.name == action.pod) return pod;
    }
    return nullptr;
  }

  absl::Status Count(absl::string_view kind, absl::Status status) {
    if (!status.ok()) c_.metrics->CountError(kind);
    return status;
  }

  // On `pod`, or on every pod of the decision when null (a job's events).
  void Event(const ScheduledPod* pod, k8s::EventType type, absl::string_view reason,
             absl::string_view action, absl::string_view note) {
    for (const ScheduledPod* each : pods_) {
      if (pod == nullptr || each == pod) {
        c_.events->Record(PodReference(each->pod), type, reason, action, note);
      }
    }
  }

  absl::Status Submit(const Action& action) {
    if (const absl::Duration left = doubtful_.WaitLeft(key_, c_.clock->Now());
        left > absl::ZeroDuration()) {
      common::LogDebug("submit_waits_for_doubtful_job",
                       {{"key", key_}, {"left", absl::FormatDuration(left)}});
      RequeueAfter(left);
      return absl::OkStatus();
    }
    absl::StatusOr<uint32_t> id = c_.syncer->Submit(action.spec);
    if (!id.ok()) {
      doubtful_.Failed(key_, id.status(), c_.clock->Now());
      c_.metrics->CountError("submit");
      const std::string message =
          absl::StrCat("submitting the placeholder job: ", id.status().message());
      Event(nullptr, k8s::EventType::kWarning, api::kFailedSubmitReason, "Submit", message);
      // Slurm refusing the job (not an outage) is for the pod's owner to see and fix; the
      // submission is still retried with backoff (the cluster's configuration may change).
      if (SlurmRefusedSubmission(id.status())) {
        for (const ScheduledPod* pod : pods_) {
          if (AlreadyMarkedInvalid(pod->pod, message, api::kFailedSubmitReason)) continue;
          (void)Count("status", MarkUnschedulable(*c_.client, pod->pod, api::kFailedSubmitReason,
                                                  message, c_.clock->Now()));
        }
      }
      return id.status();
    }
    tidepool::v1::SlurmJob job;
    job.set_job_id(*id);
    job.set_name(action.spec.name());
    job.set_comment(action.spec.comment());
    job.add_states("PENDING");
    c_.jobs->NoteSubmitted(key_, job);
    c_.metrics->CountSubmitted();
    common::LogInfo("job_submitted", {{"key", key_}, {"job_id", static_cast<int64_t>(*id)}});
    Event(nullptr, k8s::EventType::kNormal, api::kJobSubmittedReason, "Submit",
          absl::StrCat("submitted Slurm job ", *id, " (", action.spec.nodes(), " node(s), ",
                       action.spec.cpus_per_task(), " CPUs",
                       action.spec.tres_per_node().empty() ? "" : ", ", action.spec.tres_per_node(),
                       ")"));
    absl::Status first = absl::OkStatus();
    for (const ScheduledPod* pod : pods_) {
      first.Update(Count("annotate", AnnotateJobId(*c_.client, pod->pod, *id, c_.ClusterKey())));
    }
    return first;
  }

  absl::Status Bind(const ScheduledPod& pod, const Action& action) {
    // Bound already; the cache has not seen it yet.
    const std::string target = absl::StrCat("bind/", pod.pod.uid);
    if (written_.Find(target, c_.clock->Now()) == action.node) return absl::OkStatus();
    absl::Status bound = BindPod(*c_.client, pod.pod, action.node);
    if (!bound.ok()) {
      c_.metrics->CountError("bind");
      Event(&pod, k8s::EventType::kWarning, api::kFailedBindReason, "Bind",
            absl::StrCat("binding to ", action.node, ": ", bound.message()));
      return bound;
    }
    written_.Note(target, action.node, c_.clock->Now());
    c_.metrics->ObserveBind(absl::ToDoubleSeconds(c_.clock->Now() - pod.created));
    common::LogInfo("pod_bound", {{"pod", pod.pod.Key()},
                                  {"node", action.node},
                                  {"job_id", static_cast<int64_t>(action.job_id)}});
    Event(&pod, k8s::EventType::kNormal, api::kBoundReason, "Bind",
          absl::StrCat("bound to ", action.node, " where Slurm started job ", action.job_id));
    return absl::OkStatus();
  }

  void RequeueAfter(absl::Duration after) {
    requeue_after_ = std::min(requeue_after_.value_or(after), after);
  }

  absl::Status Delete(const ScheduledPod& pod, const Action& action) {
    if (action.job_missing) {
      const absl::Duration left = missing_.MissingFor(action.job_id, c_.clock->Now());
      if (left > absl::ZeroDuration()) {
        common::LogDebug("job_missing", {{"pod", pod.pod.Key()},
                                         {"job_id", static_cast<int64_t>(action.job_id)},
                                         {"taken_as_gone_in", absl::FormatDuration(left)}});
        RequeueAfter(left);
        return absl::OkStatus();
      }
    }
    Event(&pod, k8s::EventType::kNormal, action.reason, "Delete",
          absl::StrCat(action.message, "; deleting the pod"));
    absl::Status deleted = DeletePod(*c_.client, pod.pod);
    if (!deleted.ok()) return Count("delete", deleted);
    c_.metrics->CountPodDeleted();
    common::LogInfo("pod_deleted", {{"pod", pod.pod.Key()}, {"why", action.message}});
    return absl::OkStatus();
  }

  absl::Status Cancel(const Action& action) {
    // Cancelled already; the job watch has not shown it ending yet.
    const std::string target = absl::StrCat("cancel/", action.job_id);
    if (written_.Find(target, c_.clock->Now()).has_value()) return absl::OkStatus();
    absl::Status cancelled = c_.syncer->Cancel(action.job_id);
    if (!cancelled.ok() && !absl::IsNotFound(cancelled)) return Count("cancel", cancelled);
    written_.Note(target, "", c_.clock->Now());
    c_.metrics->CountCancelled();
    common::LogInfo(
        "job_cancelled",
        {{"key", key_}, {"job_id", static_cast<int64_t>(action.job_id)}, {"why", action.message}});
    Event(nullptr, k8s::EventType::kNormal, action.reason, "Cancel", action.message);
    return absl::OkStatus();
  }

  absl::Status MarkInvalid(const ScheduledPod& pod, const Action& action) {
    c_.metrics->CountError("invalid_placement");
    Event(&pod, k8s::EventType::kWarning, action.reason, "Submit",
          absl::StrCat("no Slurm job: ", action.message));
    return Count("status", MarkUnschedulable(*c_.client, pod.pod, action.reason, action.message,
                                             c_.clock->Now()));
  }

  const SyncContext& c_;
  RecentWrites& written_;
  MissingJobs& missing_;
  DoubtfulSubmits& doubtful_;
  const std::string& key_;
  const std::vector<const ScheduledPod*> pods_;
  std::optional<absl::Duration> requeue_after_;
};

absl::StatusOr<k8s::ReconcileResult> RunAll(Executor& executor,
                                            const std::vector<Action>& actions) {
  absl::Status first = absl::OkStatus();
  for (const Action& action : actions) {
    first.Update(executor.Run(action));
  }
  if (!first.ok()) {
    return first;
  }
  if (std::optional<absl::Duration> after = executor.requeue_after()) {
    return k8s::ReconcileResult{.requeue_after = *after};
  }
  return k8s::ReconcileResult{};
}

}  // namespace

PodSync::PodSync(SyncContext context)
    : context_(std::move(context)),
      missing_(kConfirmJobMissingFor),
      doubtful_(kWaitForDoubtfulJob) {}

absl::StatusOr<k8s::ReconcileResult> PodSync::Execute(
    const std::string& key, std::vector<const ScheduledPod*> pods,
    const std::vector<tidepool::v1::SlurmJob>& jobs, const std::vector<Action>& actions) {
  for (const tidepool::v1::SlurmJob& job : jobs) {
    missing_.Found(job.job_id());
  }
  Executor executor(context_, written_, missing_, doubtful_, key, std::move(pods));
  return RunAll(executor, actions);
}

std::shared_ptr<const ClusterView> PodSync::CurrentClusterView() {
  // The cluster's spec by its generation: its status changes often and feeds no view.
  k8s::CachedObjectPtr own =
      context_.informers.clusters->Get(context_.cluster_namespace, context_.cluster_name);
  const std::string version =
      absl::StrCat(context_.informers.node_sets->LastResourceVersion(), "/",
                   context_.informers.slurmd_pods->LastResourceVersion(), "/",
                   own == nullptr ? "-" : absl::StrCat(own->meta.uid, ":", own->meta.generation));
  absl::MutexLock lock(&view_mutex_);
  if (view_ == nullptr || version != view_version_) {
    view_ = std::make_shared<const ClusterView>(ObserveCluster(context_));
    view_version_ = version;
  }
  return view_;
}

SchedulerChoice PodSync::CurrentChoice() {
  const std::string version = context_.informers.clusters->LastResourceVersion();
  absl::MutexLock lock(&choice_mutex_);
  if (!choice_version_.has_value() || version != *choice_version_) {
    std::vector<tidepool::v1::SlurmCluster> clusters;
    for (const k8s::CachedObjectPtr& object : context_.informers.clusters->List()) {
      absl::StatusOr<tidepool::v1::SlurmCluster> cluster = api::ParseSlurmCluster(object->json);
      if (cluster.ok()) clusters.push_back(*std::move(cluster));
    }
    choice_ = ChooseSchedulerName(context_.ClusterKey(), clusters);
    choice_version_ = version;
  }
  return choice_;
}

std::string PodSync::SchedulerName() { return CurrentChoice().name; }

void PodSync::ReportIfChanged(const SchedulerChoice& choice) {
  {
    absl::MutexLock lock(&choice_mutex_);
    if (choice.taken_by == reported_taken_by_) return;
    reported_taken_by_ = choice.taken_by;
  }
  ReportSchedulerName(choice);
}

void PodSync::ReportSchedulerName(const SchedulerChoice& choice) {
  if (choice.taken_by.empty()) {
    common::LogInfo("scheduler_name_free", {{"cluster", context_.ClusterKey()}});
    return;
  }
  const std::string note = absl::StrCat(
      "SlurmCluster ", choice.taken_by,
      ", made earlier, has a pod scheduler of the same name: this cluster's places no pod "
      "until one of the names (spec.podScheduler.schedulerName) changes");
  common::LogWarn("scheduler_name_taken",
                  {{"cluster", context_.ClusterKey()}, {"taken_by", choice.taken_by}});
  k8s::CachedObjectPtr own =
      context_.informers.clusters->Get(context_.cluster_namespace, context_.cluster_name);
  if (own == nullptr) return;
  if (absl::StatusOr<k8s::ObjectReference> ref = k8s::ReferenceTo(own->json); ref.ok()) {
    context_.events->Record(*ref, k8s::EventType::kWarning, "SchedulerNameTaken", "Yield", note);
  }
}

absl::StatusOr<k8s::ReconcileResult> PodSync::Reconcile(const std::string& key) {
  // "" while disabled, the cluster gone or the name taken: nothing is placed, and pods keep
  // their jobs and Nodes; only a job whose pod ended (or whole group is gone) is cancelled,
  // as it holds its nodes for nothing.
  const SchedulerChoice choice = CurrentChoice();
  ReportIfChanged(choice);  // here, where only the leader comes
  if (key == kSchedulerNameKey) return k8s::ReconcileResult{};
  const std::string& scheduler = choice.name;
  if (std::optional<std::pair<std::string, std::string>> group = ParseGroupKey(key)) {
    return ReconcileGroup(key, group->first, group->second, scheduler);
  }
  const std::shared_ptr<const ClusterView> cluster = CurrentClusterView();
  std::vector<tidepool::v1::SlurmJob> jobs = context_.jobs->JobsOf(key);
  OwnedPod owned = OwnedPodOf(key, scheduler, jobs);
  // Disabled, only an ended pod's job is cancelled: Decide does no more for one.
  if (scheduler.empty() && owned.pod.has_value() && !owned.pod->pod.deleting &&
      !owned.pod->Finished()) {
    return k8s::ReconcileResult{};
  }
  const std::optional<ScheduledPod>& pod = owned.pod;
  const DecisionInput input{.pod = pod.has_value() ? &*pod : nullptr,
                            .jobs = std::move(jobs),
                            .jobs_view_fresh = context_.jobs->fresh(),
                            .recorded_group = std::move(owned.recorded_group)};
  if (input.pod == nullptr && input.jobs.empty()) return k8s::ReconcileResult{};
  std::vector<const ScheduledPod*> pods;
  if (input.pod != nullptr) pods.push_back(input.pod);
  return Execute(key, pods, input.jobs, Decide(input, *cluster));
}

PodSync::OwnedPod PodSync::OwnedPodOf(const std::string& key, const std::string& scheduler,
                                      const std::vector<tidepool::v1::SlurmJob>& jobs) {
  OwnedPod owned;
  k8s::CachedObjectPtr object = context_.informers.pods->Get(key);
  if (object == nullptr) return owned;
  absl::StatusOr<ScheduledPod> parsed = ScheduledPodOf(*object);
  if (!parsed.ok() || PlacedByOtherCluster(parsed->pod, context_.ClusterKey())) return owned;
  owned.recorded_group = RecordedGroupOf(*context_.jobs, *parsed, context_.ClusterKey());
  // A pod with a job of ours stays ours whatever the scheduler is called now: renaming it
  // must not cancel the jobs of the pods it placed.
  const bool has_job = std::any_of(
      jobs.begin(), jobs.end(),
      [&](const tidepool::v1::SlurmJob& job) { return IsJobOfPod(job, parsed->pod.uid); });
  if (parsed->scheduler_name == scheduler || has_job || owned.recorded_group.has_value()) {
    owned.pod = *std::move(parsed);
  }
  return owned;
}

absl::StatusOr<k8s::ReconcileResult> PodSync::ReconcileGroup(const std::string& key,
                                                             const std::string& ns,
                                                             const std::string& group,
                                                             const std::string& scheduler) {
  const std::shared_ptr<const ClusterView> cluster = CurrentClusterView();
  std::vector<tidepool::v1::SlurmJob> jobs = context_.jobs->JobsOf(key);
  std::set<uint32_t> job_ids;
  for (const tidepool::v1::SlurmJob& job : jobs) job_ids.insert(job.job_id());
  std::vector<ScheduledPod> members;
  bool named = false;  // by any pod, ours or not
  for (const k8s::CachedObjectPtr& object : context_.informers.pods->ListNamespace(ns)) {
    absl::StatusOr<ScheduledPod> pod = ScheduledPodOf(*object);
    if (!pod.ok() || PlacedByOtherCluster(pod->pod, context_.ClusterKey())) continue;
    named = named || PodGroupOf(pod->pod) == group;
    if (IsMember(*pod, object->meta.Key(), group, scheduler, job_ids)) {
      members.push_back(*std::move(pod));
    }
  }
  if (scheduler.empty() && (named || !members.empty())) return k8s::ReconcileResult{};
  GroupInput input{
      .ns = ns, .group = group, .jobs = std::move(jobs), .jobs_view_fresh = context_.jobs->fresh()};
  for (const ScheduledPod& member : members) input.members.push_back(&member);
  if (input.members.empty() && input.jobs.empty()) return k8s::ReconcileResult{};
  return Execute(key, input.members, input.jobs, DecideGroup(input, *cluster));
}

bool PodSync::IsMember(const ScheduledPod& pod, const std::string& pod_key,
                       const std::string& group, const std::string& scheduler,
                       const std::set<uint32_t>& group_job_ids) {
  // A pod stays with the job it records: a member of this group's job whatever it, or the
  // scheduler's name, says now; out of a group it names later when it records another
  // group's job, or runs under one of its own.
  if (std::optional<uint32_t> id = AnnotatedJobId(pod.pod);
      id.has_value() && group_job_ids.contains(*id) &&
      RecordsJob(pod.pod, *id, context_.ClusterKey())) {
    return true;
  }
  return pod.scheduler_name == scheduler && PodGroupOf(pod.pod) == group &&
         !RecordedGroupOf(*context_.jobs, pod, context_.ClusterKey()).has_value() &&
         !PlacedAsSinglePod(context_.jobs->JobsOf(pod_key), pod.pod);
}

std::vector<std::string> PodSync::SyncKeysOf(const k8s::CachedObject& object, JobTable& jobs) {
  std::vector<std::string> keys = {object.meta.ns + "/" + object.meta.name};
  const ScheduledPod* pod = object.ViewAs<ScheduledPod>();
  if (pod == nullptr) return keys;
  if (std::optional<std::string> group = PodGroupOf(pod->pod);
      group.has_value() && ValidGroupName(*group).ok()) {
    keys.push_back(GroupKey(object.meta.ns, *group));
  }
  if (std::optional<uint32_t> id = AnnotatedJobId(pod->pod)) {
    std::optional<std::string> group_key = GroupKeyOfJob(jobs, *id);
    if (group_key.has_value() && std::find(keys.begin(), keys.end(), *group_key) == keys.end()) {
      keys.push_back(*std::move(group_key));
    }
  }
  return keys;
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

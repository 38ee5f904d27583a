#pragma once

// One pod key's sync: observe (the pod, its jobs, the cluster view) → Decide → act, with
// an event on the pod for every action. Level-triggered: every sync recomputes from the
// informers' caches and the job table.

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "action.h"
#include "cluster_view.h"
#include "common/clock.h"
#include "doubtful_submits.h"
#include "job_table.h"
#include "k8s/client.h"
#include "k8s/controller.h"
#include "k8s/event_recorder.h"
#include "k8s/informer.h"
#include "metrics.h"
#include "missing_jobs.h"
#include "recent_writes.h"
#include "scheduled_pod.h"
#include "scheduler_name.h"
#include "syncer_jobs.h"

namespace tidepool::podsched {

struct Informers {
  k8s::Informer* pods = nullptr;         // pods not using the default scheduler
  k8s::Informer* slurmd_pods = nullptr;  // the cluster namespace's slurmd pods
  k8s::Informer* node_sets = nullptr;    // the cluster namespace's NodeSets
  k8s::Informer* clusters = nullptr;     // the cluster namespace's SlurmClusters
};

struct SyncContext {
  k8s::Client* client = nullptr;
  Informers informers;
  JobTable* jobs = nullptr;
  SyncerJobs* syncer = nullptr;
  k8s::EventRecorder* events = nullptr;
  SchedulerMetrics* metrics = nullptr;
  common::Clock* clock = nullptr;
  std::string cluster_namespace;
  std::string cluster_name;

  std::string ClusterKey() const { return cluster_namespace + "/" + cluster_name; }
};

class PodSync : public k8s::Reconciler {
 public:
  explicit PodSync(SyncContext context);
  absl::StatusOr<k8s::ReconcileResult> Reconcile(const std::string& key) override;

  // A key that is no pod's (pod keys hold a '/'): its sync only reports whether another
  // cluster takes the scheduler name. Enqueued with every pod on a cluster's change, so
  // the report comes when the names collide, before any pod asks for the name.
  static constexpr char kSchedulerNameKey[] = "scheduler-name";

  // The keys a pod's change concerns: its own and, for a member, its group's: the one it
  // names, and the one whose job its annotation names (it may have stopped naming it).
  static std::vector<std::string> SyncKeysOf(const k8s::CachedObject& object, JobTable& jobs);

  // The scheduler name the cluster's pods use, or "" when the cluster is absent, its pod
  // scheduler disabled, or the name taken by an older cluster's (scheduler_name.h).
  std::string SchedulerName();
  // Pod counts for the gauges (pending: ours and not bound).
  void UpdatePodGauges();

 private:
  // The pod `key` when it is ours (it asks for this scheduler, or has a job of ours, or
  // records a group's job), and the group whose job it records (recorded_group.h).
  struct OwnedPod {
    std::optional<ScheduledPod> pod;
    std::optional<std::string> recorded_group;
  };
  OwnedPod OwnedPodOf(const std::string& key, const std::string& scheduler,
                      const std::vector<tidepool::v1::SlurmJob>& jobs);
  // Whether `pod` is a member of `group`, whose jobs have `group_job_ids`.
  bool IsMember(const ScheduledPod& pod, const std::string& pod_key, const std::string& group,
                const std::string& scheduler, const std::set<uint32_t>& group_job_ids);
  absl::StatusOr<k8s::ReconcileResult> ReconcileGroup(const std::string& key, const std::string& ns,
                                                      const std::string& group,
                                                      const std::string& scheduler);

  // Carries out the decision for `key` about `pods`, given the jobs the view has for it.
  absl::StatusOr<k8s::ReconcileResult> Execute(const std::string& key,
                                               std::vector<const ScheduledPod*> pods,
                                               const std::vector<tidepool::v1::SlurmJob>& jobs,
                                               const std::vector<Action>& actions);

  // The scheduler name and who takes it, chosen again when the SlurmCluster cache moved on.
  SchedulerChoice CurrentChoice();
  // Logs, and says in an event on the cluster, that its scheduler name is taken or free,
  // once per change.
  void ReportIfChanged(const SchedulerChoice& choice);
  void ReportSchedulerName(const SchedulerChoice& choice);
  // The cluster view, rebuilt only when the NodeSet or slurmd pod caches moved on.
  std::shared_ptr<const ClusterView> CurrentClusterView();

  const SyncContext context_;
  RecentWrites written_;      // binds and cancels the caches may not show yet
  MissingJobs missing_;       // annotated jobs missing from the view, not yet taken as gone
  DoubtfulSubmits doubtful_;  // submissions that got no answer: their job may yet show
  absl::Mutex view_mutex_;
  std::string view_version_ ABSL_GUARDED_BY(view_mutex_);
  std::shared_ptr<const ClusterView> view_ ABSL_GUARDED_BY(view_mutex_);
  // The scheduler name, chosen again when the SlurmCluster cache moved on.
  absl::Mutex choice_mutex_;
  std::optional<std::string> choice_version_ ABSL_GUARDED_BY(choice_mutex_);
  SchedulerChoice choice_ ABSL_GUARDED_BY(choice_mutex_);
  std::string reported_taken_by_ ABSL_GUARDED_BY(choice_mutex_);
};

}  // namespace tidepool::podsched

#include "decide.h"

#include <algorithm>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "job_facts.h"
#include "job_identity.h"
#include "job_spec.h"
#include "pod_group.h"
#include "tidepool/contract.h"

namespace tidepool::podsched {
namespace {

using tidepool::v1::SlurmJob;

// The pod group the pod is placed with: the one whose job it records; none once it runs
// bound under a job of its own; else the one it names.
std::optional<std::string> GroupOf(const DecisionInput& input) {
  if (input.pod == nullptr) return std::nullopt;
  if (input.recorded_group.has_value()) return input.recorded_group;
  if (PlacedAsSinglePod(input.jobs, input.pod->pod)) return std::nullopt;
  return PodGroupOf(input.pod->pod);
}

// Why the pod has no single-pod job (any it has is cancelled); "" while it should.
std::string PodEnd(const DecisionInput& input) {
  const ScheduledPod* pod = input.pod;
  if (pod == nullptr) return "its pod is gone";
  if (pod->pod.deleting) return "its pod is being deleted";
  if (pod->Finished()) return absl::StrCat("its pod has ", pod->pod.phase);
  if (std::optional<std::string> group = GroupOf(input)) {
    return absl::StrCat("its pod belongs to pod group ", *group);
  }
  return "";
}

// A pod naming a pod group is placed with its group (decide_group.h); here only a bad
// group name is reported.
std::vector<Action> ForGroupMember(const ScheduledPod& pod) {
  std::optional<std::string> group = PodGroupOf(pod.pod);
  absl::Status valid = ValidGroupName(*group);
  if (valid.ok() || AlreadyMarkedInvalid(pod.pod, std::string(valid.message()))) return {};
  return {{.kind = Action::Kind::kMarkUnschedulable,
           .reason = api::kInvalidPlacementReason,
           .message = std::string(valid.message())}};
}

std::vector<Action> ForRunningJob(const ScheduledPod& pod, const SlurmJob& job,
                                  const ClusterView& cluster) {
  if (!pod.pod.node_name.empty()) return {};
  const std::vector<std::string> nodes = JobNodes(job);
  const std::string slurm_node = nodes.empty() ? job.nodes() : nodes.front();
  std::optional<std::string> node = cluster.NodeFor(slurm_node);
  if (!node.has_value()) {
    return {{.kind = Action::Kind::kWaitForNode,
             .job_id = job.job_id(),
             .message = absl::StrCat("Slurm job ", job.job_id(), " runs on \"", slurm_node,
                                     "\", which has no slurmd pod of this cluster's NodeSets")}};
  }
  return {{.kind = Action::Kind::kBind, .job_id = job.job_id(), .node = *node}};
}

std::vector<Action> WithoutJob(const ScheduledPod& pod, const DecisionInput& input,
                               const ClusterView& cluster) {
  if (!input.jobs_view_fresh) return {};
  if (std::optional<uint32_t> id = AnnotatedJobId(pod.pod)) {
    if (BoundOutsideWithoutRecordedCluster(pod.pod, cluster)) return {};
    return {{.kind = Action::Kind::kDeletePod,
             .job_id = *id,
             .reason = api::kJobEndedReason,
             .message = absl::StrCat("Slurm job ", *id, " is gone from Slurm"),
             .job_missing = true}};
  }
  if (!pod.pod.node_name.empty()) return {};  // placed by someone else: not ours to judge
  absl::StatusOr<tidepool::v1::JobSpec> spec =
      JobSpecForPod(pod.pod, pod.requests, cluster.gpu_type);
  if (spec.ok()) {
    if (absl::Status allowed = cluster.placement_policy.Allows(*spec, pod.pod.ns); !allowed.ok()) {
      spec = allowed;
    }
  }
  if (!spec.ok()) {
    const std::string message(spec.status().message());
    if (AlreadyMarkedInvalid(pod.pod, message)) return {};
    return {{.kind = Action::Kind::kMarkUnschedulable,
             .reason = api::kInvalidPlacementReason,
             .message = message}};
  }
  return {{.kind = Action::Kind::kSubmit, .spec = *std::move(spec)}};
}

}  // namespace

std::vector<Action> Decide(const DecisionInput& input, const ClusterView& cluster) {
  std::vector<Action> actions;
  const std::string pod_end = PodEnd(input);
  std::vector<const SlurmJob*> own;
  for (const SlurmJob& job : input.jobs) {
    const bool ours = pod_end.empty() && IsJobOfPod(job, input.pod->pod.uid);
    if (ours) {
      own.push_back(&job);
    } else if (JobActive(job)) {
      actions.push_back(CancelJobAction(
          job, pod_end.empty() ? "it belongs to an earlier pod of this name" : pod_end));
    }
  }
  if (input.pod != nullptr && GroupOf(input).has_value() && !input.pod->pod.deleting &&
      !input.pod->Finished()) {
    if (!input.recorded_group.has_value()) {
      std::vector<Action> next = ForGroupMember(*input.pod);
      actions.insert(actions.end(), next.begin(), next.end());
    }
    return actions;
  }
  if (!pod_end.empty()) return actions;
  const ScheduledPod& pod = *input.pod;
  const SlurmJob* primary = PrimaryJob(own);
  for (const SlurmJob* job : own) {
    if (job != primary && JobActive(*job)) {
      actions.push_back(
          CancelJobAction(*job, absl::StrCat("a duplicate of job ", primary->job_id())));
    }
  }
  if (primary == nullptr) {
    std::vector<Action> next = WithoutJob(pod, input, cluster);
    actions.insert(actions.end(), next.begin(), next.end());
    return actions;
  }
  if (!RecordsJob(pod.pod, primary->job_id(), cluster.cluster_key)) {
    actions.push_back({.kind = Action::Kind::kAnnotateJobId, .job_id = primary->job_id()});
  }
  if (JobEnded(*primary)) {
    actions.push_back(DeleteForEndedJob(*primary));
  } else if (JobRunning(*primary) && !primary->nodes().empty()) {
    std::vector<Action> next = ForRunningJob(pod, *primary, cluster);
    actions.insert(actions.end(), next.begin(), next.end());
  } else if (!pod.pod.node_name.empty()) {
    // Bound, yet the job waits again: Slurm requeued it (preempted with PreemptMode=REQUEUE).
    actions.push_back({.kind = Action::Kind::kDeletePod,
                       .job_id = primary->job_id(),
                       .reason = api::kJobEndedReason,
                       .message = absl::StrCat("Slurm job ", primary->job_id(),
                                               " left its node: ", JobStates(*primary))});
  }
  return actions;
}

}  // namespace tidepool::podsched

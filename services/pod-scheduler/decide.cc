#include "decide.h"

#include <algorithm>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "job_identity.h"
#include "job_spec.h"
#include "slurm/hostlist/hostlist.h"
#include "tidepool/contract.h"

namespace tidepool::podsched {
namespace {

using tidepool::v1::SlurmJob;

constexpr char kPodScheduledCondition[] = "PodScheduled";

const std::set<std::string>& EndedStates() {
  static const auto* const states = new std::set<std::string>{
      "COMPLETED", "CANCELLED", "FAILED",        "TIMEOUT",      "PREEMPTED", "NODE_FAIL",
      "BOOT_FAIL", "DEADLINE",  "OUT_OF_MEMORY", "SPECIAL_EXIT", "REVOKED"};
  return *states;
}

bool Ended(const SlurmJob& job) {
  return job.finished() || (job.states_size() > 0 && EndedStates().contains(job.states(0)));
}

bool Running(const SlurmJob& job) { return job.states_size() > 0 && job.states(0) == "RUNNING"; }

std::string StatesOf(const SlurmJob& job) { return absl::StrJoin(job.states(), "+"); }

bool OfPod(const SlurmJob& job, const std::string& uid) {
  std::optional<std::string> job_uid = PodUidOfJobName(job.name());
  return job_uid.has_value() && *job_uid == uid;
}

Action Cancel(const SlurmJob& job, absl::string_view why) {
  return {.kind = Action::Kind::kCancelJob,
          .job_id = job.job_id(),
          .reason = api::kJobCancelledReason,
          .message = absl::StrCat("cancelled Slurm job ", job.job_id(), ": ", why)};
}

// Why the pod is no longer live, for the cancel message; "" while it is.
std::string PodEnd(const ScheduledPod* pod) {
  if (pod == nullptr) return "its pod is gone";
  if (pod->pod.deleting) return "its pod is being deleted";
  if (pod->Finished()) return absl::StrCat("its pod has ", pod->pod.phase);
  return "";
}

std::optional<uint32_t> AnnotatedJobId(const api::PodView& pod) {
  auto it = pod.annotations.find(api::kSlurmJobIdAnnotation);
  uint32_t id = 0;
  if (it == pod.annotations.end() || !absl::SimpleAtoi(it->second, &id) || id == 0) {
    return std::nullopt;
  }
  return id;
}

// The pod's job: its lowest-numbered active one, else its latest ended one.
const SlurmJob* PrimaryJob(const std::vector<const SlurmJob*>& own) {
  const SlurmJob* primary = nullptr;
  for (const SlurmJob* job : own) {
    if (JobActive(*job) &&
        (primary == nullptr || !JobActive(*primary) || job->job_id() < primary->job_id())) {
      primary = job;
    } else if (!JobActive(*job) && (primary == nullptr ||
                                    (!JobActive(*primary) && job->job_id() > primary->job_id()))) {
      primary = job;
    }
  }
  return primary;
}

bool AlreadyMarked(const api::PodView& pod, const std::string& message) {
  auto it = pod.conditions.find(kPodScheduledCondition);
  return it != pod.conditions.end() && it->second.status == "False" &&
         it->second.reason == api::kInvalidPlacementReason && it->second.message == message;
}

Action DeleteForEndedJob(const SlurmJob& job) {
  return {.kind = Action::Kind::kDeletePod,
          .job_id = job.job_id(),
          .reason = api::kJobEndedReason,
          .message = absl::StrCat("Slurm job ", job.job_id(), " ended: ", StatesOf(job),
                                  job.reason().empty() || job.reason() == "None"
                                      ? ""
                                      : absl::StrCat(" (", job.reason(), ")"))};
}

// The first Slurm node of the job's allocation (a placeholder job has one).
std::string FirstNode(const SlurmJob& job) {
  absl::StatusOr<std::vector<std::string>> nodes = slurm::ExpandHostlist(job.nodes());
  if (!nodes.ok() || nodes->empty()) return "";
  return nodes->front();
}

std::vector<Action> ForRunningJob(const ScheduledPod& pod, const SlurmJob& job,
                                  const ClusterView& cluster) {
  if (!pod.pod.node_name.empty()) return {};
  const std::string slurm_node = FirstNode(job);
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
    return {{.kind = Action::Kind::kDeletePod,
             .job_id = *id,
             .reason = api::kJobEndedReason,
             .message = absl::StrCat("Slurm job ", *id, " is gone from Slurm")}};
  }
  if (!pod.pod.node_name.empty()) return {};  // placed by someone else: not ours to judge
  absl::StatusOr<tidepool::v1::JobSpec> spec =
      JobSpecForPod(pod.pod, pod.requests, cluster.gpu_type);
  if (!spec.ok()) {
    const std::string message(spec.status().message());
    if (AlreadyMarked(pod.pod, message)) return {};
    return {{.kind = Action::Kind::kMarkUnschedulable,
             .reason = api::kInvalidPlacementReason,
             .message = message}};
  }
  return {{.kind = Action::Kind::kSubmit, .spec = *std::move(spec)}};
}

}  // namespace

bool JobActive(const SlurmJob& job) { return !Ended(job); }

std::vector<Action> Decide(const DecisionInput& input, const ClusterView& cluster) {
  std::vector<Action> actions;
  const std::string pod_end = PodEnd(input.pod);
  std::vector<const SlurmJob*> own;
  for (const SlurmJob& job : input.jobs) {
    const bool ours = pod_end.empty() && OfPod(job, input.pod->pod.uid);
    if (ours) {
      own.push_back(&job);
    } else if (JobActive(job)) {
      actions.push_back(
          Cancel(job, pod_end.empty() ? "it belongs to an earlier pod of this name" : pod_end));
    }
  }
  if (!pod_end.empty()) return actions;
  const ScheduledPod& pod = *input.pod;
  const SlurmJob* primary = PrimaryJob(own);
  for (const SlurmJob* job : own) {
    if (job != primary && JobActive(*job)) {
      actions.push_back(Cancel(*job, absl::StrCat("a duplicate of job ", primary->job_id())));
    }
  }
  if (primary == nullptr) {
    std::vector<Action> next = WithoutJob(pod, input, cluster);
    actions.insert(actions.end(), next.begin(), next.end());
    return actions;
  }
  if (AnnotatedJobId(pod.pod) != primary->job_id()) {
    actions.push_back({.kind = Action::Kind::kAnnotateJobId, .job_id = primary->job_id()});
  }
  if (Ended(*primary)) {
    actions.push_back(DeleteForEndedJob(*primary));
  } else if (Running(*primary) && !primary->nodes().empty()) {
    std::vector<Action> next = ForRunningJob(pod, *primary, cluster);
    actions.insert(actions.end(), next.begin(), next.end());
  } else if (!pod.pod.node_name.empty()) {
    // Bound, yet the job waits again: Slurm requeued it (preempted with PreemptMode=REQUEUE).
    actions.push_back({.kind = Action::Kind::kDeletePod,
                       .job_id = primary->job_id(),
                       .reason = api::kJobEndedReason,
                       .message = absl::StrCat("Slurm job ", primary->job_id(),
                                               " left its node: ", StatesOf(*primary))});
  }
  return actions;
}

}  // namespace tidepool::podsched

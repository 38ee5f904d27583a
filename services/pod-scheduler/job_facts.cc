#include "job_facts.h"

#include <algorithm>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "job_identity.h"
#include "slurm/hostlist/hostlist.h"
#include "tidepool/contract.h"

namespace tidepool::podsched {
namespace {

using tidepool::v1::SlurmJob;

const std::set<std::string>& EndedStates() {
  static const auto* const states = new std::set<std::string>{
      "COMPLETED", "CANCELLED", "FAILED",        "TIMEOUT",      "PREEMPTED", "NODE_FAIL",
      "BOOT_FAIL", "DEADLINE",  "OUT_OF_MEMORY", "SPECIAL_EXIT", "REVOKED"};
  return *states;
}

}  // namespace

bool JobEnded(const SlurmJob& job) {
  return job.finished() || (job.states_size() > 0 && EndedStates().contains(job.states(0)));
}

bool JobRunning(const SlurmJob& job) { return job.states_size() > 0 && job.states(0) == "RUNNING"; }

std::string JobStates(const SlurmJob& job) { return absl::StrJoin(job.states(), "+"); }

std::vector<std::string> JobNodes(const SlurmJob& job) {
  absl::StatusOr<std::vector<std::string>> nodes = slurm::ExpandHostlist(job.nodes());
  if (!nodes.ok()) return {};
  return *std::move(nodes);
}

std::optional<uint32_t> AnnotatedJobId(const api::PodView& pod) {
  auto it = pod.annotations.find(api::kSlurmJobIdAnnotation);
  uint32_t id = 0;
  if (it == pod.annotations.end() || !absl::SimpleAtoi(it->second, &id) || id == 0) {
    return std::nullopt;
  }
  return id;
}

std::string RecordedCluster(const api::PodView& pod) {
  auto it = pod.annotations.find(api::kSlurmClusterAnnotation);
  return it == pod.annotations.end() ? "" : it->second;
}

bool PlacedByOtherCluster(const api::PodView& pod, absl::string_view cluster_key) {
  const std::string cluster = RecordedCluster(pod);
  return !cluster.empty() && cluster != cluster_key;
}

bool RecordsJob(const api::PodView& pod, uint32_t job_id, absl::string_view cluster_key) {
  return AnnotatedJobId(pod) == job_id && RecordedCluster(pod) == cluster_key;
}

bool AlreadyMarkedInvalid(const api::PodView& pod, const std::string& message,
                          absl::string_view reason) {
  auto it = pod.conditions.find(api::kPodScheduledCondition);
  return it != pod.conditions.end() && it->second.status == "False" &&
         it->second.reason == (reason.empty() ? api::kInvalidPlacementReason : reason) &&
         it->second.message == message;
}

bool IsJobOfPod(const SlurmJob& job, absl::string_view uid) {
  const std::optional<std::string> job_uid = PodUidOfJobName(job.name());
  return job_uid.has_value() && *job_uid == uid;
}

bool PlacedAsSinglePod(const std::vector<SlurmJob>& pod_jobs, const api::PodView& pod) {
  if (pod.node_name.empty()) return false;
  return std::any_of(pod_jobs.begin(), pod_jobs.end(), [&](const SlurmJob& job) {
    return IsJobOfPod(job, pod.uid) && JobActive(job);
  });
}

const SlurmJob* PrimaryJob(const std::vector<const SlurmJob*>& jobs) {
  // An active job over an ended one; of active ones the lowest id, of ended the latest.
  const auto preferred = [](const SlurmJob& job, const SlurmJob* current) {
    if (current == nullptr) return true;
    if (JobActive(job) != JobActive(*current)) return JobActive(job);
    return JobActive(job) ? job.job_id() < current->job_id() : job.job_id() > current->job_id();
  };
  const SlurmJob* primary = nullptr;
  for (const SlurmJob* job : jobs) {
    if (preferred(*job, primary)) primary = job;
  }
  return primary;
}

// slurmrestd's HTTP status for a refusal differs by version (422 on v0.0.45, 500 on
// v0.0.42), hence the broad set.
bool SlurmRefusedSubmission(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kInternal:
      return true;
    default:
      return false;
  }
}

bool SubmissionInDoubt(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kDeadlineExceeded:
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kCancelled:
    case absl::StatusCode::kAborted:
    case absl::StatusCode::kUnknown:
      return true;
    default:
      return false;
  }
}

Action CancelJobAction(const SlurmJob& job, absl::string_view why) {
  return {.kind = Action::Kind::kCancelJob,
          .job_id = job.job_id(),
          .reason = api::kJobCancelledReason,
          .message = absl::StrCat("cancelled Slurm job ", job.job_id(), ": ", why)};
}

Action DeleteForEndedJob(const SlurmJob& job, std::string pod) {
  const bool has_reason = !job.reason().empty() && job.reason() != "None";
  return {.kind = Action::Kind::kDeletePod,
          .pod = std::move(pod),
          .job_id = job.job_id(),
          .reason = api::kJobEndedReason,
          .message = absl::StrCat("Slurm job ", job.job_id(), " ended: ", JobStates(job),
                                  has_reason ? absl::StrCat(" (", job.reason(), ")") : "")};
}

}  // namespace tidepool::podsched

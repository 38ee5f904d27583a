#include "job_spec.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "job_identity.h"
#include "pod_group.h"
#include "tidepool/contract.h"

namespace tidepool::podsched {
namespace {

constexpr int64_t kMilli = 1000;
constexpr int64_t kMiB = 1024 * 1024;

int64_t CeilDiv(int64_t value, int64_t divisor) { return (value + divisor - 1) / divisor; }

}  // namespace

tidepool::v1::JobSpec BuildJobSpec(const api::PodView& pod, const PodRequests& requests,
                                   const Placement& placement, const std::string& gpu_type) {
  tidepool::v1::JobSpec job;
  job.set_script(kPlaceholderScript);  // where Slurm has no external jobs
  job.set_external(true);
  job.set_name(JobNameFor(pod.uid));
  job.set_comment(JobCommentFor(pod.ns, pod.name, placement.comment));
  job.set_nodes("1");
  job.set_tasks(1);
  // Slurm allocates whole CPUs; a pod without a CPU request still takes one.
  job.set_cpus_per_task(std::max<int64_t>(1, CeilDiv(requests.cpu_milli, kMilli)));
  // Without a memory request the cluster's DefMemPerCPU / DefMemPerNode decide.
  if (requests.memory_bytes > 0) job.set_memory_per_node_mb(CeilDiv(requests.memory_bytes, kMiB));
  if (requests.gpus > 0) {
    job.set_tres_per_node(gpu_type.empty()
                              ? absl::StrCat("gres/gpu:", requests.gpus)
                              : absl::StrCat("gres/gpu:", gpu_type, ":", requests.gpus));
  }
  job.set_partition(placement.partition);
  job.set_account(placement.account);
  job.set_qos(placement.qos);
  job.set_time_limit_minutes(placement.time_limit_minutes);
  job.set_exclusive(placement.exclusive);
  job.set_reservation(placement.reservation);
  job.set_cwd("/tmp");
  job.set_standard_output("/dev/null");
  return job;
}

absl::StatusOr<tidepool::v1::JobSpec> JobSpecForPod(const api::PodView& pod,
                                                    const absl::StatusOr<PodRequests>& requests,
                                                    const std::string& gpu_type) {
  absl::StatusOr<Placement> placement = ParsePlacement(pod.annotations);
  if (!placement.ok()) return placement.status();
  if (!requests.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("resource requests: ", requests.status().message()));
  }
  return BuildJobSpec(pod, *requests, *placement, gpu_type);
}

absl::StatusOr<tidepool::v1::JobSpec> JobSpecForGroup(
    const std::string& ns, const std::string& group,
    const std::vector<const ScheduledPod*>& members, const std::string& gpu_type) {
  const ScheduledPod& first = *members.front();
  absl::StatusOr<int> size = PodGroupSize(first.pod);
  absl::StatusOr<Placement> placement = ParsePlacement(first.pod.annotations);
  PodRequests per_node;
  std::vector<std::string> uids;
  for (const ScheduledPod* member : members) {
    const std::string who = absl::StrCat("pod ", member->pod.name, ": ");
    absl::StatusOr<int> member_size = PodGroupSize(member->pod);
    if (!member_size.ok())
      return absl::InvalidArgumentError(absl::StrCat(who, member_size.status().message()));
    if (*member_size != *size) {
      return absl::InvalidArgumentError(absl::StrCat(
          "pods of pod group ", group, " disagree on ", api::kPodGroupSizeAnnotation, " (pod ",
          first.pod.name, ": ", *size, ", pod ", member->pod.name, ": ", *member_size, ")"));
    }
    absl::StatusOr<Placement> member_placement = ParsePlacement(member->pod.annotations);
    if (!member_placement.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(who, member_placement.status().message()));
    }
    if (!(*member_placement == *placement)) {
      return absl::InvalidArgumentError(
          absl::StrCat("pods of pod group ", group,
                       " disagree on their tidepool.dev/* placement annotations (pod ",
                       first.pod.name, " and pod ", member->pod.name, ")"));
    }
    if (!member->requests.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(who, "resource requests: ", member->requests.status().message()));
    }
    per_node.cpu_milli = std::max(per_node.cpu_milli, member->requests->cpu_milli);
    per_node.memory_bytes = std::max(per_node.memory_bytes, member->requests->memory_bytes);
    per_node.gpus = std::max(per_node.gpus, member->requests->gpus);
    uids.push_back(member->pod.uid);
  }
  tidepool::v1::JobSpec job = BuildJobSpec(first.pod, per_node, *placement, gpu_type);
  job.set_name(GroupJobNameFor(GroupFingerprint(uids)));
  job.set_comment(GroupJobCommentFor(ns, group, placement->comment));
  job.set_nodes(absl::StrCat(*size));
  job.set_tasks(*size);
  return job;
}

}  // namespace tidepool::podsched

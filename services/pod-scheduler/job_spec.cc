#include "job_spec.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "job_identity.h"

namespace tidepool::podsched {
namespace {

constexpr int64_t kMilli = 1000;
constexpr int64_t kMiB = 1024 * 1024;

int64_t CeilDiv(int64_t value, int64_t divisor) { return (value + divisor - 1) / divisor; }

}  // namespace

tidepool::v1::JobSpec BuildJobSpec(const api::PodView& pod, const PodRequests& requests,
                                   const Placement& placement, const std::string& gpu_type) {
  tidepool::v1::JobSpec job;
  job.set_script(kPlaceholderScript);
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

}  // namespace tidepool::podsched

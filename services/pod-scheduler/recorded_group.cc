#include "recorded_group.h"

#include <cstdint>
#include <utility>

#include "job_facts.h"
#include "pod_group.h"

namespace tidepool::podsched {

std::optional<std::string> GroupKeyOfJob(JobTable& jobs, uint32_t id) {
  std::optional<std::pair<std::string, tidepool::v1::SlurmJob>> filed = jobs.Find(id);
  if (!filed.has_value() || !ParseGroupKey(filed->first).has_value()) return std::nullopt;
  return std::move(filed->first);
}

std::optional<std::string> RecordedGroupOf(JobTable& jobs, const ScheduledPod& pod,
                                           const std::string& cluster_key) {
  std::optional<uint32_t> id = AnnotatedJobId(pod.pod);
  if (!id.has_value() || !RecordsJob(pod.pod, *id, cluster_key)) return std::nullopt;
  std::optional<std::string> key = GroupKeyOfJob(jobs, *id);
  if (!key.has_value()) return std::nullopt;
  std::optional<std::pair<std::string, std::string>> group = ParseGroupKey(*key);
  if (group->first != pod.pod.ns) return std::nullopt;
  return group->second;
}

}  // namespace tidepool::podsched

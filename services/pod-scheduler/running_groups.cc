#include "running_groups.h"

#include <utility>

#include "job_facts.h"
#include "pod_group.h"

namespace tidepool::podsched {

std::optional<std::string> RunningGroups::Of(const ScheduledPod& pod) {
  if (pod.pod.node_name.empty()) return std::nullopt;
  std::optional<uint32_t> id = AnnotatedJobId(pod.pod);
  if (!id.has_value()) return std::nullopt;
  const JobPlacement& placement = PlacementOf(*id);
  if (placement.group.empty() || placement.ns != pod.pod.ns ||
      !placement.k8s_nodes.contains(pod.pod.node_name)) {
    return std::nullopt;
  }
  return placement.group;
}

const RunningGroups::JobPlacement& RunningGroups::PlacementOf(uint32_t job_id) {
  if (auto known = placements_.find(job_id); known != placements_.end()) return known->second;
  JobPlacement placement;
  std::optional<std::pair<std::string, tidepool::v1::SlurmJob>> filed = jobs_.Find(job_id);
  if (filed.has_value()) {
    if (std::optional<std::pair<std::string, std::string>> group = ParseGroupKey(filed->first)) {
      placement.ns = group->first;
      placement.group = group->second;
      for (const std::string& slurm_node : JobNodes(filed->second)) {
        if (std::optional<std::string> node = cluster_.NodeFor(slurm_node)) {
          placement.k8s_nodes.insert(*std::move(node));
        }
      }
    }
  }
  return placements_.emplace(job_id, std::move(placement)).first->second;
}

}  // namespace tidepool::podsched

#include "pod_placements.h"

namespace tidepool::cluster {

void PodPlacements::Place(const std::string& pod_key, const std::string& node,
                          const std::string& cluster) {
  absl::MutexLock lock(&mutex_);
  ForgetLocked(pod_key);
  if (node.empty() || cluster.empty()) return;
  by_pod_[pod_key] = {node, cluster};
  ++by_node_[node][cluster];
}

void PodPlacements::Remove(const std::string& pod_key) {
  absl::MutexLock lock(&mutex_);
  ForgetLocked(pod_key);
}

void PodPlacements::ForgetLocked(const std::string& pod_key) {
  auto placed = by_pod_.find(pod_key);
  if (placed == by_pod_.end()) return;
  const auto& [node, cluster] = placed->second;
  auto on_node = by_node_.find(node);
  if (on_node != by_node_.end()) {
    auto count = on_node->second.find(cluster);
    if (count != on_node->second.end() && --count->second <= 0) on_node->second.erase(count);
    if (on_node->second.empty()) by_node_.erase(on_node);
  }
  by_pod_.erase(placed);
}

std::set<std::string> PodPlacements::ClustersOn(const std::string& node) const {
  absl::MutexLock lock(&mutex_);
  std::set<std::string> clusters;
  auto on_node = by_node_.find(node);
  if (on_node == by_node_.end()) return clusters;
  for (const auto& [cluster, count] : on_node->second) clusters.insert(cluster);
  return clusters;
}

size_t PodPlacements::nodes() const {
  absl::MutexLock lock(&mutex_);
  return by_node_.size();
}

}  // namespace tidepool::cluster

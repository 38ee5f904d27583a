#include "cluster_view.h"

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "job_facts.h"
#include "tidepool/gres.h"

namespace tidepool::podsched {
namespace {

constexpr char kGpuGres[] = "gpu";

bool OfCluster(const tidepool::v1::NodeSet& node_set, const std::string& ns,
               const std::string& cluster) {
  return node_set.metadata().namespace_() == ns && node_set.spec().cluster_ref().name() == cluster;
}

}  // namespace

std::optional<std::string> ClusterView::NodeFor(const std::string& slurm_node) const {
  auto it = node_of_slurm_node.find(slurm_node);
  if (it == node_of_slurm_node.end()) return std::nullopt;
  return it->second;
}

bool BoundOutsideWithoutRecordedCluster(const api::PodView& pod, const ClusterView& cluster) {
  return RecordedCluster(pod).empty() && !pod.node_name.empty() &&
         !cluster.slurmd_nodes.contains(pod.node_name);
}

ClusterView BuildClusterView(const std::string& cluster_namespace, const std::string& cluster,
                             const std::vector<tidepool::v1::NodeSet>& node_sets,
                             const std::vector<api::PodView>& slurmd_pods) {
  ClusterView view;
  view.cluster_key = absl::StrCat(cluster_namespace, "/", cluster);
  std::set<std::string> gpu_types;
  for (const tidepool::v1::NodeSet& node_set : node_sets) {
    if (!OfCluster(node_set, cluster_namespace, cluster)) continue;
    view.node_set_uids.insert(node_set.metadata().uid());
    absl::StatusOr<api::GresSpec> gres = api::ParseGresSpec(node_set.spec().slurm().gres());
    if (gres.ok() && gres->name == kGpuGres && !gres->type.empty()) gpu_types.insert(gres->type);
  }
  if (gpu_types.size() == 1) view.gpu_type = *gpu_types.begin();
  for (const api::PodView& pod : slurmd_pods) {
    if (pod.ns != cluster_namespace || pod.node_name.empty()) continue;
    if (!view.node_set_uids.contains(pod.controller_uid)) continue;
    view.slurmd_nodes.insert(pod.node_name);
    if (pod.deleting) continue;
    view.node_of_slurm_node[pod.name] = pod.node_name;
  }
  return view;
}

}  // namespace tidepool::podsched

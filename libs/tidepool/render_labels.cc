#include "tidepool/render_labels.h"

namespace tidepool::api {

std::vector<std::string> TopologyTreeLabels(const tidepool::v1::TopologySpec& spec) {
  if (!spec.tree_labels().empty()) return {spec.tree_labels().begin(), spec.tree_labels().end()};
  return {"ib.coreweave.cloud/fabric", "ib.coreweave.cloud/superpod",
          "ib.coreweave.cloud/leafgroup"};
}

std::string TopologyBlockLabel(const tidepool::v1::TopologySpec& spec) {
  return spec.block_label().empty() ? "ds.coreweave.com/nvlink.domain" : spec.block_label();
}

LabelKeys RenderLabelKeys(
    const tidepool::v1::SlurmCluster& cluster,
    const google::protobuf::RepeatedPtrField<tidepool::v1::NodeSet>& node_sets) {
  LabelKeys keys = {kGpuCountLabel, kGpuProductLabel};
  const tidepool::v1::TopologySpec& topology = cluster.spec().topology();
  for (std::string& label : TopologyTreeLabels(topology)) keys.insert(std::move(label));
  keys.insert(TopologyBlockLabel(topology));
  for (const tidepool::v1::NodeSet& node_set : node_sets) {
    for (const auto& [label, prefix] : node_set.spec().slurm().feature_labels()) {
      keys.insert(label);
    }
  }
  return keys;
}

}  // namespace tidepool::api

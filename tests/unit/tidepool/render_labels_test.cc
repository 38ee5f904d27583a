#include "tidepool/render_labels.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::api {
namespace {

TEST_CASE("a render reads the GPU labels and the default topology labels of any cluster") {
  const LabelKeys keys = RenderLabelKeys(v1::SlurmCluster(), {});
  CHECK(keys == LabelKeys{"nvidia.com/gpu.count", "nvidia.com/gpu.product",
                          "ib.coreweave.cloud/fabric", "ib.coreweave.cloud/superpod",
                          "ib.coreweave.cloud/leafgroup", "ds.coreweave.com/nvlink.domain"});
}

TEST_CASE("a render reads the cluster's topology labels and the NodeSets' feature labels") {
  v1::SlurmCluster cluster;
  v1::TopologySpec& topology = *cluster.mutable_spec()->mutable_topology();
  topology.add_tree_labels("rack");
  topology.add_tree_labels("row");
  topology.set_block_label("nvl");
  google::protobuf::RepeatedPtrField<v1::NodeSet> node_sets;
  (*node_sets.Add()->mutable_spec()->mutable_slurm()->mutable_feature_labels())["zone"] = "z-";
  (*node_sets.Add()->mutable_spec()->mutable_slurm()->mutable_feature_labels())["pool"] = "";
  const LabelKeys keys = RenderLabelKeys(cluster, node_sets);
  CHECK(keys == LabelKeys{"nvidia.com/gpu.count", "nvidia.com/gpu.product", "rack", "row", "nvl",
                          "zone", "pool"});
  CHECK(TopologyTreeLabels(topology) == std::vector<std::string>{"rack", "row"});
  CHECK(TopologyBlockLabel(topology) == "nvl");
}

}  // namespace
}  // namespace tidepool::api

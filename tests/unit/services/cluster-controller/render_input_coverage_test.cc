// cluster-controller sends the renderer only a Node's render input (CopyRenderInput: of its
// labels, those api::RenderLabelKeys names) and its Node cache keeps no more than
// KeepRenderInputOnly. Should the renderer come to read another field or label of a Node,
// these renders would differ: the reduction would be dropping an input, and the rendered
// config would be wrong.
#include <google/protobuf/util/message_differencer.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <string>

#include "absl/strings/str_cat.h"
#include "render.h"
#include "render_inputs.h"
#include "tidepool/render_labels.h"
#include "tidepool/resources.h"

namespace tidepool::cluster {
namespace {

// A Node with every field the API model reads set, those the render should not read
// included (taints, cordon, annotations, identity and version), with topology, feature,
// GPU and feature discovery's labels.
v1::NodeInfo FullNode(int index) {
  const std::string name = absl::StrCat("k8s-gpu-", index);
  absl::StatusOr<v1::NodeInfo> node = api::ParseNode(absl::StrCat(
      R"({"kind": "Node", "metadata": {"name": ")", name, R"(", "uid": "uid-)", index,
      R"(", "resourceVersion": "4711", "generation": 3, "creationTimestamp": "2026-12-01T00:00:00Z",
      "labels": {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
        "topology.kubernetes.io/zone": "zone-)",
      index % 2, R"(",
        "ib.coreweave.cloud/fabric": "f1", "ib.coreweave.cloud/superpod": "s)",
      index % 2, R"(", "ib.coreweave.cloud/leafgroup": "l)", index % 3, R"(",
        "ds.coreweave.com/nvlink.domain": "nvl)",
      index % 2, R"(",
        "nvidia.com/gpu.count": "8", "feature.node.kubernetes.io/cpu-cpuid.AVX512F": "true",
        "kubernetes.io/hostname": ")",
      name, R"("},
      "annotations": {"tidepool.dev/cordon-reason": "k8s: maintenance", "note": "x"}},
      "spec": {"unschedulable": true, "taints": [
        {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"},
        {"key": "gpu", "value": "broken", "effect": "NoExecute"}]},
      "status": {"allocatable": {"cpu": "64", "memory": "256Gi", "nvidia.com/gpu": "8",
        "pods": "110"}}})"));
  REQUIRE(node.ok());
  return *std::move(node);
}

v1::RenderRequest Request(const std::string& topology) {
  v1::RenderRequest request;
  absl::StatusOr<v1::SlurmCluster> cluster = api::ParseSlurmCluster(absl::StrCat(
      R"({"apiVersion": "tidepool.dev/v1alpha1", "kind": "SlurmCluster",
      "metadata": {"name": "research", "namespace": "hpc"},
      "spec": {"clusterName": "research", "topology": )",
      topology, R"(, "partitions": [{"name": "gpu", "nodeSets": ["h100"], "default": true}]}})"));
  REQUIRE(cluster.ok());
  *request.mutable_cluster() = *std::move(cluster);
  absl::StatusOr<v1::NodeSet> node_set = api::ParseNodeSet(
      R"({"apiVersion": "tidepool.dev/v1alpha1", "kind": "NodeSet",
      "metadata": {"name": "h100", "namespace": "hpc"},
      "spec": {"clusterRef": {"name": "research"}, "replicas": 6,
        "slurm": {"features": ["h100"], "featureLabels": {"topology.kubernetes.io/zone": "zone-"}}}})");
  REQUIRE(node_set.ok());
  *request.add_node_sets() = *std::move(node_set);
  for (int i = 1; i <= 6; ++i) {
    v1::MemberNode* member = request.add_members();
    member->set_slurm_node_name(absl::StrCat("gpu-", i));
    member->set_node_set("h100");
    *member->mutable_node() = FullNode(i);
  }
  return request;
}

TEST_CASE("a Node's render input renders as the whole Node does") {
  const std::string topology = GENERATE(R"({"plugin": "tree"})",
                                        R"({"plugin": "block", "blockLabel":
                                            "ds.coreweave.com/nvlink.domain", "blockSizes": [2]})");
  const v1::RenderRequest full = Request(topology);
  const api::LabelKeys labels = api::RenderLabelKeys(full.cluster(), full.node_sets());
  v1::RenderRequest kept = full;  // as the Node cache keeps them
  for (v1::MemberNode& member : *kept.mutable_members()) {
    KeepRenderInputOnly(*member.mutable_node());
  }
  v1::RenderRequest reduced = kept;  // as the request has them
  for (v1::MemberNode& member : *reduced.mutable_members()) {
    v1::NodeInfo input;
    CopyRenderInput(member.node(), labels, input);
    *member.mutable_node() = std::move(input);
  }
  // Not vacuous: each reduction dropped some of what the one before had.
  REQUIRE_FALSE(google::protobuf::util::MessageDifferencer::Equals(full, kept));
  REQUIRE_FALSE(google::protobuf::util::MessageDifferencer::Equals(kept, reduced));

  absl::StatusOr<v1::RenderResponse> from_full = renderer::Render(full);
  REQUIRE(from_full.ok());
  for (const v1::RenderRequest* request : {&kept, &reduced}) {
    absl::StatusOr<v1::RenderResponse> rendered = renderer::Render(*request);
    REQUIRE(rendered.ok());
    CHECK(rendered->config_hash() == from_full->config_hash());
    CHECK(google::protobuf::util::MessageDifferencer::Equals(*rendered, *from_full));
  }
}

}  // namespace
}  // namespace tidepool::cluster

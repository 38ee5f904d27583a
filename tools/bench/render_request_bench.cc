// The render request cluster-controller builds for 10,000 slurmd pods on Nodes with few
// labels (the simulated Nodes' 8) and with as many as a real GPU Node carries (60: feature
// discovery's, the GPU operator's, the cloud's). Prints the request's size on its arena and
// serialized (what gRPC sends config-renderer, which parses it again) and the time to build
// it, with each Node's labels as the request holds them (those a render reads,
// api::RenderLabelKeys) and with all of them, as it sent them before. Not run by ctest.
//
//   render_request_bench
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "render_inputs.h"
#include "tidepool/node_view.h"
#include "tidepool/pod_view.h"

namespace {

namespace cluster = tidepool::cluster;
namespace api = tidepool::api;

constexpr int kMembers = 10000;

constexpr char kCluster[] = R"({"apiVersion": "tidepool.dev/v1alpha1", "kind": "SlurmCluster",
  "metadata": {"name": "bench", "namespace": "hpc", "uid": "u1"},
  "spec": {"clusterName": "bench", "topology": {"plugin": "tree"}}})";
constexpr char kNodeSet[] = R"({"apiVersion": "tidepool.dev/v1alpha1", "kind": "NodeSet",
  "metadata": {"name": "h100", "namespace": "hpc", "uid": "uid-h100"},
  "spec": {"clusterRef": {"name": "bench"},
    "slurm": {"featureLabels": {"topology.kubernetes.io/zone": "zone-"}}}})";

std::string PodJson(int i) {
  const std::string name = absl::StrFormat("h100-%05d", i);
  return absl::StrCat(R"({"metadata": {"name": ")", name, R"(", "namespace": "hpc", "labels": {
    "tidepool.dev/cluster": "bench", "tidepool.dev/nodeset": "h100",
    "tidepool.dev/slurm-node": ")",
                      name, R"("}, "ownerReferences": [{"apiVersion": "tidepool.dev/v1alpha1",
    "kind": "NodeSet", "name": "h100", "uid": "uid-h100", "controller": true}]},
    "spec": {"nodeName": "node-)",
                      i, R"("}})");
}

// A Node with `labels` labels: the render's (GPU, topology, zone), the kubelet's, and
// feature discovery's for the rest.
std::string NodeJson(int i, int labels) {
  std::string json = absl::StrCat(R"({"metadata": {"name": "node-)", i, R"(", "labels": {
    "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.count": "8",
    "topology.kubernetes.io/zone": "z)",
                                  i % 3, R"(", "ib.coreweave.cloud/fabric": "f)", i / 2000,
                                  R"(", "ib.coreweave.cloud/superpod": "s)", i / 500,
                                  R"(", "ib.coreweave.cloud/leafgroup": "l)", i / 32,
                                  R"(", "kubernetes.io/hostname": "node-)", i, R"(")");
  for (int extra = 7; extra < labels; ++extra) {
    absl::StrAppend(&json, R"(, "feature.node.kubernetes.io/cpu-cpuid.FEATURE)", extra,
                    R"(": "true")");
  }
  absl::StrAppend(&json, R"(}}, "status": {"allocatable": {"cpu": "128",
    "memory": "2113929216Ki", "nvidia.com/gpu": "8", "pods": "110"}}})");
  return json;
}

struct Measured {
  double build_ms = 0;
  size_t arena_bytes = 0;
  size_t serialized_bytes = 0;
};

// The request's size on an arena of its own: the label maps the all-labels variant
// replaced stay on the request's arena, which would count them too.
size_t SpaceOnFreshArena(const tidepool::v1::RenderRequest& request) {
  google::protobuf::Arena fresh;
  auto* copy = google::protobuf::Arena::CreateMessage<tidepool::v1::RenderRequest>(&fresh);
  copy->CopyFrom(request);
  return fresh.SpaceUsed();
}

Measured Measure(const cluster::ClusterObjects& objects, bool all_labels,
                 const std::map<std::string, std::shared_ptr<const api::NodeView>>& nodes) {
  std::vector<double> millis;
  Measured measured;
  for (int round = 0; round < 5; ++round) {
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<cluster::RenderInputs> inputs = cluster::BuildRenderInputs(objects, {});
    if (!inputs.ok()) {
      std::fprintf(stderr, "render_request_bench: %s\n",
                   std::string(inputs.status().message()).c_str());
      std::exit(1);
    }
    if (all_labels) {  // each member's Node with every label the cache holds
      for (tidepool::v1::MemberNode& member : *inputs->request->mutable_members()) {
        *member.mutable_node()->mutable_metadata()->mutable_labels() =
            nodes.at(member.node().metadata().name())->info->metadata().labels();
      }
    }
    millis.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
    measured.arena_bytes =
        all_labels ? SpaceOnFreshArena(*inputs->request) : inputs->arena->SpaceUsed();
    measured.serialized_bytes = inputs->request->ByteSizeLong();
  }
  std::sort(millis.begin(), millis.end());
  measured.build_ms = millis[millis.size() / 2];
  return measured;
}

void Run(int labels) {
  std::map<std::string, std::shared_ptr<const api::NodeView>> nodes;
  cluster::ClusterObjects objects{.cluster_json = kCluster, .node_set_jsons = {kNodeSet}};
  for (int i = 0; i < kMembers; ++i) {
    objects.pods.push_back(std::make_shared<const api::PodView>(*api::ParsePodView(PodJson(i))));
    std::any view = cluster::NodeViewForRender(NodeJson(i, labels));
    nodes[absl::StrCat("node-", i)] =
        std::make_shared<const api::NodeView>(std::any_cast<api::NodeView>(std::move(view)));
  }
  objects.node_view = [&nodes](const std::string& name) {
    auto it = nodes.find(name);
    return it != nodes.end() ? it->second : nullptr;
  };
  for (const bool all : {true, false}) {
    const Measured m = Measure(objects, all, nodes);
    // The all-labels build is this one plus a copy of the labels: its time says nothing.
    const std::string built =
        all ? "" : absl::StrFormat(", built in %.1f ms (median of 5)", m.build_ms);
    std::printf(
        "%d members, %2d labels per Node, %-26s request %5.1f MB on its arena, %5.1f MB "
        "serialized%s\n",
        kMembers, labels, all ? "all labels:" : "the labels a render reads:",
        static_cast<double>(m.arena_bytes) / 1e6, static_cast<double>(m.serialized_bytes) / 1e6,
        built.c_str());
  }
}

}  // namespace

int main() {
  Run(8);
  Run(60);
  return 0;
}

#include "tidepool/node_view.h"

#include <catch2/catch_test_macros.hpp>
#include <map>
#include <memory>
#include <string>

namespace tidepool::api {
namespace {

TEST_CASE("a Node's view has its cordon, conditions and the model's NodeInfo") {
  absl::StatusOr<NodeView> node = ParseNodeView(R"({
    "kind": "Node",
    "metadata": {"name": "k-7", "labels": {"pool": "gpu"},
                 "annotations": {"tidepool.dev/cordon-reason": "disk",
                                 "tidepool.dev/drain": "k8s: update"}},
    "spec": {"unschedulable": true,
             "taints": [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]},
    "status": {"allocatable": {"cpu": "64", "nvidia.com/gpu": "8"},
               "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                               "message": "kubelet is posting ready status"},
                              {"type": "SlurmDrain", "status": "False", "reason": "NotDrained",
                               "message": "", "lastTransitionTime": "2026-12-05T06:00:00Z"}]}})");
  REQUIRE(node.ok());
  CHECK(node->name == "k-7");
  CHECK(node->annotations.at("tidepool.dev/drain") == "k8s: update");
  CHECK(node->unschedulable);
  CHECK(node->cordon_reason == "disk");
  CHECK(node->ready);
  CHECK(node->conditions.at("SlurmDrain").reason == "NotDrained");
  CHECK(node->conditions.at("SlurmDrain").last_transition_time == "2026-12-05T06:00:00Z");
  // The kubelet's: the status alone (Tidepool reads the details only of what it writes).
  CHECK(node->conditions.at("Ready").status == "True");
  CHECK(node->conditions.at("Ready").reason.empty());
  CHECK(node->conditions.at("Ready").message.empty());
  REQUIRE(node->info.ok());
  CHECK(node->info->metadata().name() == "k-7");
  CHECK(node->info->metadata().labels().at("pool") == "gpu");
  CHECK(node->info->metadata().annotations().empty());  // held once, in the view's own map
  CHECK(node->info->unschedulable());
  REQUIRE(node->info->taints_size() == 1);
  CHECK(node->info->taints(0).effect() == "NoSchedule");
  CHECK(node->info->allocatable().at("nvidia.com/gpu") == "8");
}

TEST_CASE("a bare Node's view has defaults") {
  absl::StatusOr<NodeView> node = ParseNodeView(R"({"metadata": {"name": "k-1"}})");
  REQUIRE(node.ok());
  CHECK(node->name == "k-1");
  CHECK_FALSE(node->unschedulable);
  CHECK_FALSE(node->ready);
  CHECK(node->cordon_reason.empty());
  CHECK(node->conditions.empty());
  REQUIRE(node->info.ok());
  CHECK(node->info->allocatable().empty());
}

TEST_CASE("a Node's view fails only for what is not an object; the model's reading apart") {
  CHECK_FALSE(ParseNodeView("[1]").ok());
  CHECK_FALSE(ParseNodeView("not json").ok());
  // The model refuses another kind; the drain inputs are still read.
  absl::StatusOr<NodeView> pod = ParseNodeView(
      R"({"kind": "Pod", "metadata": {"name": "p"}, "spec": {"unschedulable": true}})");
  REQUIRE(pod.ok());
  CHECK(pod->name == "p");
  CHECK(pod->unschedulable);
  CHECK_FALSE(pod->info.ok());
}

TEST_CASE("a Node's view skips the model when asked, and only the model") {
  absl::StatusOr<NodeView> node = ParseNodeView(
      R"({"metadata": {"name": "k-2"}, "spec": {"unschedulable": true}})", NodeModel::kSkip);
  REQUIRE(node.ok());
  CHECK(node->name == "k-2");
  CHECK(node->unschedulable);
  CHECK(node->info.status().code() == absl::StatusCode::kFailedPrecondition);
}

TEST_CASE("a Node's view for an informer's cache: the view with its model, or nothing") {
  std::any view = NodeViewForCache(R"({"metadata": {"name": "k-3"}})");
  REQUIRE(std::any_cast<NodeView>(&view) != nullptr);
  CHECK(std::any_cast<NodeView>(&view)->info.ok());
  CHECK_FALSE(NodeViewForCache("[1]").has_value());
}

TEST_CASE("a Node's model view keeps no annotations or conditions, but what was read of them") {
  std::any view = NodeViewForCacheKeeping(NodeModel::kRead, ViewKeeps::Only({}, {}))(R"({
    "metadata": {"name": "k-5", "labels": {"pool": "gpu"},
                 "annotations": {"tidepool.dev/cordon-reason": "disk", "other": "x"}},
    "spec": {"unschedulable": true},
    "status": {"conditions": [{"type": "Ready", "status": "True"},
                              {"type": "SlurmDrain", "status": "True", "reason": "Drained"}]}})");
  const NodeView* node = std::any_cast<NodeView>(&view);
  REQUIRE(node != nullptr);
  CHECK(node->annotations.empty());
  CHECK(node->conditions.empty());
  CHECK(node->ready);
  CHECK(node->unschedulable);
  CHECK(node->cordon_reason == "disk");
  REQUIRE(node->info.ok());
  CHECK(node->info->metadata().labels().at("pool") == "gpu");
  CHECK_FALSE(NodeViewForCacheKeeping(NodeModel::kRead, {})("[1]").has_value());
}

TEST_CASE("a Node's model view keeps the labels its NodeLabelKeys keeps only") {
  auto labels = std::make_shared<NodeLabelKeys>(LabelKeys{"pool"});
  const auto parse = NodeViewForCacheKeeping(NodeModel::kRead, ViewKeeps::Only({}, {}), labels);
  const std::string json =
      R"({"metadata": {"name": "k-8", "labels": {"pool": "gpu", "zone": "a", "nfd/x": "1"}}})";
  std::any view = parse(json);
  const NodeView* node = std::any_cast<NodeView>(&view);
  REQUIRE(node != nullptr);
  REQUIRE(node->info.ok());
  CHECK(node->info->metadata().labels().size() == 1);
  CHECK(node->info->metadata().labels().at("pool") == "gpu");
  // Without NodeLabelKeys: all of them.
  std::any all = NodeViewForCacheKeeping(NodeModel::kRead, ViewKeeps::Only({}, {}))(json);
  CHECK(std::any_cast<NodeView>(&all)->info->metadata().labels().size() == 3);
}

TEST_CASE("a Node's drain view keeps only the annotations and conditions it is told to") {
  std::any view = NodeViewForCacheKeeping(
      NodeModel::kSkip, ViewKeeps::Only({"tidepool.dev/drain"}, {"SlurmDrain", "GpuFailed"}))(
      R"({"metadata": {"name": "k-6",
                      "annotations": {"tidepool.dev/cordon-reason": "disk",
                                      "tidepool.dev/drain": "k8s: x", "other": "y"}},
         "status": {"conditions": [{"type": "Ready", "status": "True"},
                                   {"type": "GpuFailed", "status": "True"},
                                   {"type": "SlurmDrain", "status": "True", "reason": "Drained"},
                                   {"type": "SlurmCordon", "status": "False"}]}})");
  const NodeView* node = std::any_cast<NodeView>(&view);
  REQUIRE(node != nullptr);
  CHECK(node->annotations == std::map<std::string, std::string>{{"tidepool.dev/drain", "k8s: x"}});
  REQUIRE(node->conditions.size() == 2);
  CHECK(node->conditions.at("SlurmDrain").reason == "Drained");
  CHECK(node->conditions.at("GpuFailed").status == "True");
  CHECK(node->ready);
  CHECK(node->cordon_reason == "disk");
  CHECK(node->info.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK_FALSE(NodeViewForCacheKeeping(NodeModel::kSkip, {})("[1]").has_value());
}

TEST_CASE("a Node's drain view with no lists keeps every annotation and condition") {
  std::any view = NodeViewForCacheKeeping(NodeModel::kSkip, {})(
      R"({"metadata": {"name": "k-7", "annotations": {"a": "1", "b": "2"}},
         "status": {"conditions": [{"type": "Ready", "status": "False"},
                                   {"type": "GpuFailed", "status": "True"}]}})");
  const NodeView* node = std::any_cast<NodeView>(&view);
  REQUIRE(node != nullptr);
  CHECK(node->annotations.size() == 2);
  CHECK(node->conditions.size() == 2);
  CHECK_FALSE(node->ready);
}

TEST_CASE("a cached Node's model: from its view, its JSON, or an error when it has neither") {
  const std::string json = R"({"metadata": {"name": "k-4", "labels": {"pool": "gpu"}}})";
  k8s::CachedObject full{.json = "", .view = NodeViewForCache(json)};
  REQUIRE(NodeInfoOf(full).ok());
  CHECK(NodeInfoOf(full)->metadata().labels().at("pool") == "gpu");
  k8s::CachedObject drain_with_json{.json = json,
                                    .view = NodeViewForCacheKeeping(NodeModel::kSkip, {})(json)};
  REQUIRE(NodeInfoOf(drain_with_json).ok());  // read from the JSON
  CHECK(NodeInfoOf(drain_with_json)->metadata().name() == "k-4");
  k8s::CachedObject drain_only{.json = "",
                               .view = NodeViewForCacheKeeping(NodeModel::kSkip, {})(json)};
  CHECK(NodeInfoOf(drain_only).status().code() == absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace tidepool::api

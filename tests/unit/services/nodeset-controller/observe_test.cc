#include "observe.h"

#include <algorithm>
#include <catch2/catch_test_macros.hpp>

#include "k8s/resource.h"
#include "tidepool/pod_view.h"
#include "tidepool/resources.h"

namespace tidepool::nodeset {
namespace {

tidepool::v1::NodeSet NodeSet(const std::string& name, const std::string& selector_value,
                              int replicas = -1) {
  tidepool::v1::NodeSet node_set;
  node_set.mutable_metadata()->set_name(name);
  node_set.mutable_spec()->mutable_cluster_ref()->set_name("research");
  node_set.mutable_spec()->set_name_prefix(name);
  (*node_set.mutable_spec()->mutable_node_selector())["pool"] = selector_value;
  if (replicas >= 0) node_set.mutable_spec()->set_replicas(replicas);
  return node_set;
}

tidepool::v1::NodeInfo Node(const std::string& name, const std::string& pool,
                            const std::string& slurm_label = "") {
  tidepool::v1::NodeInfo node;
  node.mutable_metadata()->set_name(name);
  (*node.mutable_metadata()->mutable_labels())["pool"] = pool;
  if (!slurm_label.empty()) {
    (*node.mutable_metadata()->mutable_labels())["tidepool.dev/slurm-node"] = slurm_label;
  }
  return node;
}

TEST_CASE("a pod is observed with its node, readiness, template hash and deletion") {
  absl::StatusOr<ObservedPod> pod = ObservePod(R"({
    "metadata": {"name": "n-01", "uid": "u1", "deletionTimestamp": "2026-12-02T08:00:00Z",
                 "annotations": {"tidepool.dev/template-hash": "sha256:x"}},
    "spec": {"nodeName": "node-a"},
    "status": {"conditions": [{"type": "PodScheduled", "status": "True"},
                              {"type": "Ready", "status": "True"}]}})");
  REQUIRE(pod.ok());
  CHECK(pod->name == "n-01");
  CHECK(pod->uid == "u1");
  CHECK(pod->node_name == "node-a");
  CHECK(pod->template_hash == "sha256:x");
  CHECK(pod->ready);
  CHECK(pod->deleting);

  absl::StatusOr<ObservedPod> pending =
      ObservePod(R"({"metadata": {"name": "n-02"}, "status": {"phase": "Pending"}})");
  REQUIRE(pending.ok());
  CHECK_FALSE(pending->ready);
  CHECK_FALSE(pending->deleting);
  CHECK_FALSE(ObservePod("[1]").ok());
}

// A cached pod as an informer stores it: with its view and without its JSON, or with only
// its JSON (no view could be parsed).
k8s::CachedObject CachedPod(const std::string& json, bool viewed) {
  k8s::CachedObject cached{.meta = *k8s::ParseObjectMeta(json), .json = json};
  if (viewed) {
    cached.view = api::PodViewForCache(json);
    cached.json.clear();
  }
  return cached;
}

TEST_CASE("a pod is observed only when the NodeSet controls it, from its view or its JSON") {
  const std::string json = R"({"metadata": {"name": "n-01", "uid": "u1",
      "ownerReferences": [{"apiVersion": "tidepool.dev/v1alpha1", "kind": "NodeSet",
                           "name": "a", "uid": "set-1", "controller": true}]},
      "spec": {"nodeName": "node-a"}})";
  for (bool viewed : {true, false}) {
    const k8s::CachedObject pod = CachedPod(json, viewed);
    std::optional<ObservedPod> own = ObserveControlledPod(pod, "set-1");
    REQUIRE(own.has_value());
    CHECK(own->name == "n-01");
    CHECK(own->node_name == "node-a");
    CHECK_FALSE(ObserveControlledPod(pod, "set-2").has_value());  // a namesake NodeSet's
    CHECK_FALSE(ObserveControlledPod(pod, "").has_value());
  }
  const k8s::CachedObject orphan = CachedPod(R"({"metadata": {"name": "n-02"}})", true);
  CHECK_FALSE(ObserveControlledPod(orphan, "set-1").has_value());
}

std::vector<SharedNodeInfo> Shared(const std::vector<tidepool::v1::NodeInfo>& nodes) {
  std::vector<SharedNodeInfo> shared;
  for (const tidepool::v1::NodeInfo& node : nodes) {
    shared.push_back(std::make_shared<const tidepool::v1::NodeInfo>(node));
  }
  return shared;
}

TEST_CASE("a Node goes to one NodeSet of the cluster; replicas do not hand Nodes over") {
  const std::vector<tidepool::v1::NodeSet> siblings = {NodeSet("a", "x", 1), NodeSet("b", "x")};
  const std::vector<tidepool::v1::NodeInfo> nodes = {Node("n1", "x"), Node("n2", "x"),
                                                     Node("n3", "y")};
  std::vector<std::string> warnings;
  const std::vector<FeasibleNode> for_a =
      FeasibleNodesFor(siblings[0], siblings, Shared(nodes), {}, warnings);
  REQUIRE(for_a.size() == 2);  // a's cap of 1 chooses among its own two Nodes later
  CHECK(for_a[0].name == "n1");
  CHECK(for_a[0].planned_slurm_name == "a-01");
  CHECK(for_a[1].planned_slurm_name == "a-02");
  CHECK(FeasibleNodesFor(siblings[1], siblings, Shared(nodes), {}, warnings).empty());
  CHECK_FALSE(warnings.empty());
}

TEST_CASE("a Node's kept Slurm name is planned for it") {
  const std::vector<tidepool::v1::NodeSet> siblings = {NodeSet("n", "x")};
  std::vector<std::string> warnings;
  const std::vector<FeasibleNode> feasible = FeasibleNodesFor(
      siblings[0], siblings, Shared({Node("k1", "x"), Node("k2", "x", "n-01")}), {}, warnings);
  REQUIRE(feasible.size() == 2);
  CHECK(feasible[0].name == "k2");
  CHECK(feasible[0].planned_slurm_name == "n-01");
  CHECK(feasible[0].slurm_node_label == "n-01");
  CHECK(feasible[1].name == "k1");
  CHECK(feasible[1].planned_slurm_name == "n-02");
  CHECK(feasible[1].slurm_node_label.empty());
}

tidepool::v1::NodeInfo Tainted(const std::string& name, const std::string& key,
                               const std::string& effect) {
  tidepool::v1::NodeInfo node = Node(name, "x");
  tidepool::v1::Taint* taint = node.add_taints();
  taint->set_key(key);
  taint->set_effect(effect);
  return node;
}

TEST_CASE("as for a DaemonSet: NoSchedule keeps new pods off but not the pod already there") {
  const std::vector<tidepool::v1::NodeSet> siblings = {NodeSet("n", "x")};
  const std::vector<tidepool::v1::NodeInfo> nodes = {
      Tainted("new-not-ready", "node.kubernetes.io/not-ready", "NoSchedule"),
      Tainted("old-not-ready", "node.kubernetes.io/not-ready", "NoSchedule"),
      Tainted("cordoned", "node.kubernetes.io/unschedulable", "NoSchedule"),
      Tainted("unreachable", "node.kubernetes.io/unreachable", "NoExecute"),
      Tainted("gpu-broken", "example.com/broken", "NoExecute")};
  std::vector<std::string> warnings;
  std::vector<std::string> names;
  const std::vector<SharedNodeInfo> cached = Shared(nodes);
  for (const FeasibleNode& node :
       FeasibleNodesFor(siblings[0], siblings, cached, {"old-not-ready", "gpu-broken"}, warnings)) {
    names.push_back(node.name);
  }
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"cordoned", "old-not-ready", "unreachable"});
}

TEST_CASE("update strategy and maxUnavailable as the spec says, RollingUpdate 1 by default") {
  absl::StatusOr<tidepool::v1::NodeSet> defaults = api::ParseNodeSet(
      R"({"apiVersion":"tidepool.dev/v1alpha1","kind":"NodeSet","metadata":{"name":"a"},"spec":{"clusterRef":{"name":"c"}}})");
  REQUIRE(defaults.ok());
  CHECK(StrategyOf(*defaults) == UpdateStrategyType::kRollingUpdate);
  CHECK(MaxUnavailableText(*defaults) == "1");
  absl::StatusOr<tidepool::v1::NodeSet> percent = api::ParseNodeSet(
      R"({"apiVersion":"tidepool.dev/v1alpha1","kind":"NodeSet","metadata":{"name":"a"},"spec":{"clusterRef":{"name":"c"},
          "updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"30%"}}}})");
  REQUIRE(percent.ok());
  CHECK(MaxUnavailableText(*percent) == "30%");
  absl::StatusOr<tidepool::v1::NodeSet> count = api::ParseNodeSet(
      R"({"apiVersion":"tidepool.dev/v1alpha1","kind":"NodeSet","metadata":{"name":"a"},"spec":{"clusterRef":{"name":"c"},
          "updateStrategy":{"rollingUpdate":{"maxUnavailable":3}}}})");
  REQUIRE(count.ok());
  CHECK(MaxUnavailableText(*count) == "3");
  absl::StatusOr<tidepool::v1::NodeSet> on_delete = api::ParseNodeSet(
      R"({"apiVersion":"tidepool.dev/v1alpha1","kind":"NodeSet","metadata":{"name":"a"},"spec":{"clusterRef":{"name":"c"},
          "updateStrategy":{"type":"OnDelete"}}})");
  REQUIRE(on_delete.ok());
  CHECK(StrategyOf(*on_delete) == UpdateStrategyType::kOnDelete);
}

}  // namespace
}  // namespace tidepool::nodeset

#include "tidepool/feasibility.h"

#include <catch2/catch_test_macros.hpp>
#include <iterator>
#include <string>

#include "support/api_fixtures.h"

namespace tidepool::api {
namespace {

using ::tidepool::testing::NodeSetWith;
using ::tidepool::testing::NodeWith;

TEST_CASE("nodeSelector must match every label") {
  const auto node_set = NodeSetWith("h100", R"("nodeSelector": {"gpu": "h100", "zone": "a"})");
  CHECK(NodeSetFitsNode(node_set, NodeWith("n1", R"("gpu": "h100", "zone": "a", "x": "y")")));
  std::string reason;
  CHECK_FALSE(NodeSetFitsNode(node_set, NodeWith("n2", R"("gpu": "h100")"), &reason));
  CHECK(reason == "node selector zone=a does not match");
}

TEST_CASE("required node affinity ORs terms and ANDs expressions") {
  const auto node_set = NodeSetWith("h100", R"("affinity": {"nodeAffinity": {
      "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "gpu", "operator": "In", "values": ["h100", "h200"]},
                              {"key": "broken", "operator": "DoesNotExist"}]},
        {"matchExpressions": [{"key": "gpus", "operator": "Gt", "values": ["4"]}]}]}}})");
  CHECK(NodeSetFitsNode(node_set, NodeWith("a", R"("gpu": "h200")")));
  CHECK_FALSE(NodeSetFitsNode(node_set, NodeWith("b", R"("gpu": "h200", "broken": "")")));
  CHECK(NodeSetFitsNode(node_set, NodeWith("c", R"("gpus": "8")")));
  CHECK_FALSE(NodeSetFitsNode(node_set, NodeWith("d", R"("gpus": "2")")));
  CHECK_FALSE(NodeSetFitsNode(node_set, NodeWith("e", R"("gpu": "a100")")));
}

TEST_CASE("the labels a fit reads are the selector's and the required affinity's keys") {
  const auto node_set = NodeSetWith("h100", R"("nodeSelector": {"zone": "a"},
      "affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
          {"matchExpressions": [{"key": "gpu", "operator": "In", "values": ["h100"]},
                                {"key": "broken", "operator": "DoesNotExist"}]},
          {"matchExpressions": [{"key": "gpus", "operator": "Gt", "values": ["4"]}]}]}},
        "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
          {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "rack"}]}})");
  const absl::flat_hash_set<std::string> keys = NodeSetFitLabelKeys(node_set);
  CHECK(keys == absl::flat_hash_set<std::string>{"zone", "gpu", "broken", "gpus"});
  CHECK(NodeSetFitLabelKeys(NodeSetWith("plain", "")).empty());
  // A Node with only those labels fits as the Node with all of them does (a cache that
  // keeps those keys decides as one that keeps all).
  for (const char* labels :
       {R"("zone": "a", "gpu": "h100", "x": "1")", R"("zone": "a", "gpu": "h100", "broken": "")",
        R"("zone": "a", "gpus": "8", "rack": "r1")", R"("zone": "b", "gpus": "8")"}) {
    tidepool::v1::NodeInfo full = NodeWith("n", labels);
    tidepool::v1::NodeInfo kept = full;
    auto& kept_labels = *kept.mutable_metadata()->mutable_labels();
    for (auto it = kept_labels.begin(); it != kept_labels.end();) {
      it = keys.contains(it->first) ? std::next(it) : kept_labels.erase(it);
    }
    CAPTURE(labels);
    CHECK(NodeSetFitsNode(node_set, kept) == NodeSetFitsNode(node_set, full));
  }
}

TEST_CASE("NoSchedule and NoExecute taints need a toleration") {
  const std::string taint =
      R"("taints": [{"key": "dedicated", "value": "slurm", "effect": "NoSchedule"}])";
  const auto node = NodeWith("n", "", taint);
  std::string reason;
  CHECK_FALSE(NodeSetFitsNode(NodeSetWith("plain", ""), node, &reason));
  CHECK(reason == "taint dedicated=slurm:NoSchedule is not tolerated");
  CHECK(NodeSetFitsNode(
      NodeSetWith("tolerant", R"("tolerations": [{"key": "dedicated", "operator": "Equal",
                                                  "value": "slurm", "effect": "NoSchedule"}])"),
      node));
  CHECK(NodeSetFitsNode(NodeSetWith("all", R"("tolerations": [{"operator": "Exists"}])"), node));
  CHECK_FALSE(NodeSetFitsNode(
      NodeSetWith("wrong", R"("tolerations": [{"key": "dedicated", "value": "other"}])"), node));
  CHECK(NodeSetFitsNode(
      NodeSetWith("plain", ""),
      NodeWith("soft", "", R"("taints": [{"key": "a", "effect": "PreferNoSchedule"}])")));
}

}  // namespace
}  // namespace tidepool::api

#include "tidepool/feasibility.h"

#include <catch2/catch_test_macros.hpp>

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
  CHECK(NodeSetFitsNode(NodeSetWith("plain", ""),
                        NodeWith("soft", "", R"("taints": [{"key": "a", "effect": "PreferNoSchedule"}])")));
}

}  // namespace
}  // namespace tidepool::api

#include "tidepool/membership.h"

#include <catch2/catch_test_macros.hpp>

#include "support/api_fixtures.h"

namespace tidepool::api {
namespace {

using ::tidepool::testing::NodeSetWith;
using ::tidepool::testing::NodeWith;

std::vector<std::string> Names(const std::vector<PlannedMember>& members) {
  std::vector<std::string> names;
  for (const auto& member : members) {
    names.push_back(member.slurm_node_name + "@" + member.node->metadata().name());
  }
  return names;
}

TEST_CASE("PlanMembers names feasible Nodes with the lowest free ordinals in Node order") {
  std::vector<std::string> warnings;
  // Members point at the Nodes: keep them alive while the result is read.
  const std::vector<tidepool::v1::NodeInfo> nodes = {NodeWith("node-c", R"("gpu": "h100")"),
                                                     NodeWith("node-a", R"("gpu": "h100")"),
                                                     NodeWith("node-b", R"("gpu": "a100")")};
  const auto members = PlanMembers(
      {NodeSetWith("h100", R"("namePrefix": "gpu", "nodeSelector": {"gpu": "h100"})")}, nodes,
      warnings);
  CHECK(Names(members) == std::vector<std::string>{"gpu-01@node-a", "gpu-02@node-c"});
  CHECK(warnings.empty());
}

TEST_CASE("PlanMembers keeps a name recorded on the Node and fills around it") {
  std::vector<std::string> warnings;
  const std::vector<tidepool::v1::NodeInfo> nodes = {
      NodeWith("node-a", ""), NodeWith("node-b", R"("tidepool.dev/slurm-node": "h100-02")"),
      NodeWith("node-c", R"("tidepool.dev/slurm-node": "other-05")")};
  const auto members = PlanMembers({NodeSetWith("h100", "")}, nodes, warnings);
  CHECK(Names(members) ==
        std::vector<std::string>{"h100-01@node-a", "h100-02@node-b", "h100-03@node-c"});
}

TEST_CASE("PlanMembers gives a Node to one NodeSet only, and honours replicas") {
  std::vector<std::string> warnings;
  const std::vector<tidepool::v1::NodeInfo> nodes = {NodeWith("n1", ""), NodeWith("n2", ""),
                                                     NodeWith("n3", "")};
  const auto members = PlanMembers(
      {NodeSetWith("b-set", ""), NodeSetWith("a-set", R"("replicas": 1)")}, nodes, warnings);
  CHECK(Names(members) == std::vector<std::string>{"a-set-01@n1", "b-set-01@n2", "b-set-02@n3"});
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == "Node n1 fits NodeSets a-set and b-set; it belongs to a-set");
}

}  // namespace
}  // namespace tidepool::api

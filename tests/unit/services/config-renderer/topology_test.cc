#include "topology.h"

#include <catch2/catch_test_macros.hpp>

#include "request_fixture.h"

namespace tidepool::renderer {
namespace {

using ::tidepool::testing::Member;

std::string Path(const std::string& fabric, const std::string& superpod, const std::string& leaf) {
  return R"("ib.coreweave.cloud/fabric": ")" + fabric + R"(", "ib.coreweave.cloud/superpod": ")" +
         superpod + R"(", "ib.coreweave.cloud/leafgroup": ")" + leaf + "\"";
}

TEST_CASE("Tree topology builds leaf, middle and top switches from label paths") {
  std::vector<tidepool::v1::MemberNode> members = {
      Member("n01", "a", Path("f1", "s1", "l1")), Member("n02", "a", Path("f1", "s1", "l1")),
      Member("n03", "a", Path("f1", "s1", "l2")), Member("n04", "a", Path("f1", "s2", "l1")),
      Member("n05", "a")};
  std::vector<const tidepool::v1::MemberNode*> pointers;
  for (const auto& member : members) pointers.push_back(&member);
  tidepool::v1::TopologySpec spec;
  spec.set_plugin("tree");
  std::vector<std::string> warnings;
  auto conf = DeriveTopology(spec, pointers, warnings);
  REQUIRE(conf.ok());
  std::vector<std::string> lines;
  for (const auto& s : conf->switches) {
    lines.push_back(s.name + " nodes=" + std::to_string(s.nodes.size()) +
                    " switches=" + std::to_string(s.switches.size()));
  }
  CHECK(lines == std::vector<std::string>{"f1-s1-l1 nodes=2 switches=0",
                                          "f1-s1-l2 nodes=1 switches=0",
                                          "f1-s2-l1 nodes=1 switches=0", "f1-s1 nodes=0 switches=2",
                                          "f1-s2 nodes=0 switches=1", "f1 nodes=0 switches=2",
                                          "unlabeled nodes=1 switches=0"});
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == "nodes n05 lack label ib.coreweave.cloud/fabric needed by the topology");
}

TEST_CASE("Block topology groups nodes by the NVLink-domain label") {
  std::vector<tidepool::v1::MemberNode> members = {
      Member("n01", "a", R"("ds.coreweave.com/nvlink.domain": "nvl1")"),
      Member("n02", "a", R"("ds.coreweave.com/nvlink.domain": "nvl2")"),
      Member("n03", "a", R"("ds.coreweave.com/nvlink.domain": "nvl1")"), Member("n04", "a")};
  std::vector<const tidepool::v1::MemberNode*> pointers;
  for (const auto& member : members) pointers.push_back(&member);
  tidepool::v1::TopologySpec spec;
  spec.set_plugin("block");
  spec.add_block_sizes(2);
  spec.add_block_sizes(4);
  std::vector<std::string> warnings;
  auto conf = DeriveTopology(spec, pointers, warnings);
  REQUIRE(conf.ok());
  REQUIRE(conf->blocks.size() == 2);
  CHECK(conf->blocks[0].name == "nvl1");
  CHECK(conf->blocks[0].nodes == std::vector<std::string>{"n01", "n03"});
  CHECK(conf->block_sizes == std::vector<int>{2, 4});
  CHECK(warnings ==
        std::vector<std::string>{
            "nodes n04 lack label ds.coreweave.com/nvlink.domain needed by the topology"});
}

TEST_CASE("Block sizes must grow by power-of-two multiples") {
  tidepool::v1::TopologySpec spec;
  spec.set_plugin("block");
  for (int size : {18, 54}) spec.add_block_sizes(size);
  std::vector<std::string> warnings;
  auto conf = DeriveTopology(spec, {}, warnings);
  REQUIRE_FALSE(conf.ok());
  CHECK(conf.status().message() ==
        "spec.topology.blockSizes: 18,54 is not increasing by power-of-two multiples of the first "
        "size (54)");
  spec.set_block_sizes(1, 72);
  CHECK(DeriveTopology(spec, {}, warnings).ok());
}

}  // namespace
}  // namespace tidepool::renderer

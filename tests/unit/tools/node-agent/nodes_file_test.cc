#include <catch2/catch_test_macros.hpp>

#include "slurm_testenv.h"

namespace tidepool::node_agent {
namespace {

TEST_CASE("the Slurm environment's nodes file gives addresses and marks absent nodes") {
  const std::map<std::string, TestenvNode> nodes = ParseNodesFile(
      "n-01 1 10.77.0.10\n"
      "n-02 2 127.0.0.2 absent\n"
      "\n"
      "broken 3\n"
      "n-04 4 10.77.0.13 something-else\n");
  REQUIRE(nodes.size() == 3);
  CHECK(nodes.at("n-01").address == "10.77.0.10");
  CHECK_FALSE(nodes.at("n-01").absent);
  CHECK(nodes.at("n-02").address == "127.0.0.2");
  CHECK(nodes.at("n-02").absent);
  CHECK_FALSE(nodes.at("n-04").absent);
}

}  // namespace
}  // namespace tidepool::node_agent

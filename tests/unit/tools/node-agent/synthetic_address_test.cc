#include <catch2/catch_test_macros.hpp>
#include <cstdio>
#include <set>
#include <string>

#include "agent_options.h"

namespace tidepool::node_agent {
namespace {

TEST_CASE("synthetic Node addresses stay valid and distinct at 10,000 Nodes") {
  CHECK(SyntheticNodeAddress(1) == "10.77.250.1");
  CHECK(SyntheticNodeAddress(1500) == "10.77.255.250");
  CHECK(SyntheticNodeAddress(1501) == "10.78.0.1");
  std::set<std::string> seen;
  for (int ordinal = 1; ordinal <= 10000; ++ordinal) {
    const std::string address = SyntheticNodeAddress(ordinal);
    CHECK(seen.insert(address).second);
    int a = 0, b = 0, c = 0, d = 0;
    REQUIRE(std::sscanf(address.c_str(), "%d.%d.%d.%d", &a, &b, &c, &d) == 4);
    CHECK((b <= 255 && c <= 255 && d >= 1 && d <= 250));
  }
}

}  // namespace
}  // namespace tidepool::node_agent

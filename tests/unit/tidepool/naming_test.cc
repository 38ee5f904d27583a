#include "tidepool/naming.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::api {
namespace {

TEST_CASE("SlurmNodeName pads ordinals to two digits") {
  CHECK(SlurmNodeName("gpu-h100", 3) == "gpu-h100-03");
  CHECK(SlurmNodeName("gpu-h100", 123) == "gpu-h100-123");
}

TEST_CASE("OrdinalOf reads back only names of the prefix") {
  CHECK(OrdinalOf("gpu-h100", "gpu-h100-07") == 7);
  CHECK(OrdinalOf("gpu-h100", "gpu-h100-x7") == -1);
  CHECK(OrdinalOf("gpu-h100", "gpu-h200-07") == -1);
  CHECK(OrdinalOf("gpu", "gpu-h100-07") == -1);
  CHECK(OrdinalOf("gpu", "gpu-") == -1);
}

TEST_CASE("LowestFreeOrdinals fills gaps first") {
  CHECK(LowestFreeOrdinals({2, 4}, 3) == std::vector<int>{1, 3, 5});
  CHECK(LowestFreeOrdinals({}, 2) == std::vector<int>{1, 2});
  CHECK(LowestFreeOrdinals({1, 2}, 0).empty());
}

TEST_CASE("NamePrefix defaults to the NodeSet's name") {
  tidepool::v1::NodeSet node_set;
  node_set.mutable_metadata()->set_name("h100");
  CHECK(NamePrefix(node_set) == "h100");
  node_set.mutable_spec()->set_name_prefix("gpu-h100");
  CHECK(NamePrefix(node_set) == "gpu-h100");
}

}  // namespace
}  // namespace tidepool::api

#include "tidepool/gres.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::api {
namespace {

TEST_CASE("ParseGresSpec reads name:type:count and name:count") {
  auto typed = ParseGresSpec("gpu:h100:8");
  REQUIRE(typed.ok());
  CHECK(typed->name == "gpu");
  CHECK(typed->type == "h100");
  CHECK(typed->count == 8);
  CHECK(typed->ToString() == "gpu:h100:8");
  CHECK(ParseGresSpec("gpu:4")->ToString() == "gpu:4");
}

TEST_CASE("ParseGresSpec refuses malformed GRES with the expected form") {
  for (const char* bad :
       {"gpu:8x", "gpu", "gpu:h100:0", ":h100:8", "gpu:h 100:8", "a:b:c:d", "gpu:-1"}) {
    CAPTURE(bad);
    const auto parsed = ParseGresSpec(bad);
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.status().message() ==
          std::string("\"") + bad +
              "\" is not name:type:count or name:count (for example gpu:h100:8)");
  }
}

TEST_CASE("SlurmGpuType shortens NVIDIA product labels") {
  CHECK(SlurmGpuType("NVIDIA-H100-80GB-HBM3") == "h100");
  CHECK(SlurmGpuType("NVIDIA-H100-NVL") == "h100");
  CHECK(SlurmGpuType("NVIDIA-H200") == "h200");
  CHECK(SlurmGpuType("NVIDIA-A100-SXM4-80GB") == "a100");
  CHECK(SlurmGpuType("NVIDIA-B200") == "b200");
  CHECK(SlurmGpuType("NVIDIA-GB200") == "gb200");
  CHECK(SlurmGpuType("NVIDIA-GH200-480GB") == "gh200");
  CHECK(SlurmGpuType("NVIDIA-L40S") == "l40s");
  CHECK(SlurmGpuType("NVIDIA-L4") == "l4");
  CHECK(SlurmGpuType("Tesla-V100-SXM2-16GB") == "v100");
  CHECK(SlurmGpuType("NVIDIA-RTX-A6000") == "rtxa6000");
  CHECK(SlurmGpuType("NVIDIA") == "");
  CHECK(SlurmGpuType("") == "");
}

tidepool::v1::NodeInfo Node(std::map<std::string, std::string> labels,
                            std::map<std::string, std::string> allocatable) {
  tidepool::v1::NodeInfo node;
  node.mutable_metadata()->set_name("node-a");
  node.mutable_metadata()->mutable_labels()->insert(labels.begin(), labels.end());
  node.mutable_allocatable()->insert(allocatable.begin(), allocatable.end());
  return node;
}

TEST_CASE("NodeGpuGres counts allocatable GPUs, falls back to the count label") {
  auto from_allocatable = NodeGpuGres(
      Node({{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"}}, {{"nvidia.com/gpu", "8"}}));
  REQUIRE(from_allocatable.ok());
  REQUIRE(from_allocatable->has_value());
  CHECK((*from_allocatable)->ToString() == "gpu:h100:8");
  auto from_label = NodeGpuGres(Node({{"nvidia.com/gpu.count", "4"}}, {}));
  CHECK((*from_label)->ToString() == "gpu:4");
  CHECK_FALSE(NodeGpuGres(Node({}, {{"cpu", "8"}}))->has_value());
  CHECK(NodeGpuGres(Node({{"nvidia.com/gpu.count", "four"}}, {})).status().message() ==
        "Node node-a: label nvidia.com/gpu.count=\"four\" is not a GPU count");
}

}  // namespace
}  // namespace tidepool::api

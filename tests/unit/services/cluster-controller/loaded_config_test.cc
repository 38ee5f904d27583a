#include "loaded_config.h"

#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"

namespace tidepool::cluster {
namespace {

google::protobuf::RepeatedPtrField<v1::LoadedNode> Expected(int count, int cpus,
                                                            std::vector<std::string> partitions) {
  google::protobuf::RepeatedPtrField<v1::LoadedNode> nodes;
  for (int i = 1; i <= count; ++i) {
    v1::LoadedNode* node = nodes.Add();
    node->set_name("cpu-0" + std::to_string(i));
    node->set_cpus(cpus);
    node->set_real_memory_mib(4096);
    for (const std::string& partition : partitions) node->add_partitions(partition);
  }
  return nodes;
}

// What slurmctld lists: the same nodes; partitions in Slurm's own order.
google::protobuf::RepeatedPtrField<v1::SlurmNode> Listed(int count, int cpus,
                                                         std::vector<std::string> partitions) {
  google::protobuf::RepeatedPtrField<v1::SlurmNode> nodes;
  for (int i = count; i >= 1; --i) {
    v1::SlurmNode* node = nodes.Add();
    node->set_name("cpu-0" + std::to_string(i));
    node->set_cpus(cpus);
    node->set_real_memory_mb(4096);
    for (const std::string& partition : partitions) node->add_partitions(partition);
  }
  return nodes;
}

TEST_CASE("slurmctld listing the rendered nodes means the config is loaded") {
  CHECK_FALSE(LoadedConfigMismatch(Expected(3, 8, {"all", "batch"}), Listed(3, 8, {"batch", "all"}))
                  .has_value());
}

TEST_CASE("A node the config added and slurmctld does not list is named") {
  std::optional<std::string> mismatch =
      LoadedConfigMismatch(Expected(3, 8, {"batch"}), Listed(2, 8, {"batch"}));
  REQUIRE(mismatch.has_value());
  CHECK(*mismatch == "slurmctld does not list cpu-03");
}

TEST_CASE("A node the config removed and slurmctld still lists is named") {
  std::optional<std::string> mismatch =
      LoadedConfigMismatch(Expected(2, 8, {"batch"}), Listed(3, 8, {"batch"}));
  REQUIRE(mismatch.has_value());
  CHECK(*mismatch == "slurmctld still lists cpu-03, which the config removed");
}

TEST_CASE("Changed CPUs, memory or partitions are differences") {
  SECTION("CPUs") {
    std::optional<std::string> mismatch =
        LoadedConfigMismatch(Expected(1, 8, {"batch"}), Listed(1, 4, {"batch"}));
    REQUIRE(mismatch.has_value());
    CHECK(*mismatch == "cpu-01 has 4 CPUs, the config 8");
  }
  SECTION("memory") {
    auto listed = Listed(1, 8, {"batch"});
    listed[0].set_real_memory_mb(1);
    std::optional<std::string> mismatch = LoadedConfigMismatch(Expected(1, 8, {"batch"}), listed);
    REQUIRE(mismatch.has_value());
    CHECK(*mismatch == "cpu-01 has RealMemory 1, the config 4096");
  }
  SECTION("partitions") {
    std::optional<std::string> mismatch =
        LoadedConfigMismatch(Expected(1, 8, {"batch", "debug"}), Listed(1, 8, {"batch"}));
    REQUIRE(mismatch.has_value());
    CHECK(*mismatch == "cpu-01 is in partitions [batch], the config [batch,debug]");
  }
}

TEST_CASE("Attributes the config leaves to slurmd are not compared") {
  auto expected = Expected(1, 0, {"batch"});
  expected[0].set_real_memory_mib(0);
  auto listed = Listed(1, 64, {"batch"});
  listed[0].set_real_memory_mb(515000);
  CHECK_FALSE(LoadedConfigMismatch(expected, listed).has_value());
}

TEST_CASE("Many differences name the first few and count them all") {
  std::optional<std::string> mismatch =
      LoadedConfigMismatch(Expected(6, 8, {"batch"}), Listed(0, 8, {"batch"}));
  REQUIRE(mismatch.has_value());
  CHECK(absl::StartsWith(*mismatch,
                         "slurmctld does not list cpu-01; slurmctld does not list "
                         "cpu-02; slurmctld does not list cpu-03"));
  CHECK(absl::EndsWith(*mismatch, "(6 differences)"));
}

}  // namespace
}  // namespace tidepool::cluster

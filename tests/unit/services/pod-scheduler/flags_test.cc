#include "flags.h"

#include <catch2/catch_test_macros.hpp>

#include "absl/strings/match.h"

namespace tidepool::podsched {
namespace {

SchedulerOptions Defaults() {
  return {.syncer_address = "127.0.0.1:50062", .lease_name = "pod-scheduler", .workers = 16};
}

TEST_CASE("--slurm_cluster names the SlurmCluster as namespace/name") {
  absl::StatusOr<SchedulerOptions> options = ValidateSchedulerOptions("hpc/research", Defaults());
  REQUIRE(options.ok());
  CHECK(options->cluster_namespace == "hpc");
  CHECK(options->cluster_name == "research");
  for (const char* bad : {"", "research", "hpc/", "/research", "Hpc/research", "a/b/c"}) {
    absl::StatusOr<SchedulerOptions> refused = ValidateSchedulerOptions(bad, Defaults());
    INFO(bad);
    REQUIRE_FALSE(refused.ok());
    CHECK(absl::StrContains(refused.status().message(), "--slurm_cluster"));
  }
}

TEST_CASE("bad worker counts and an empty syncer address are refused naming the flag") {
  SchedulerOptions options = Defaults();
  options.workers = 0;
  CHECK(absl::StrContains(ValidateSchedulerOptions("hpc/r", options).status().message(),
                          "--workers=0"));
  options = Defaults();
  options.syncer_address.clear();
  CHECK(absl::StrContains(ValidateSchedulerOptions("hpc/r", options).status().message(),
                          "--syncer_address"));
}

}  // namespace
}  // namespace tidepool::podsched

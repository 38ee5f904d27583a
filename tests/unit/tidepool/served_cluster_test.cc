// Which SlurmClusters a controller acts for, from --slurm_cluster and --watch_namespace.
#include "tidepool/served_cluster.h"

#include <catch2/catch_test_macros.hpp>

#include "absl/strings/match.h"

namespace tidepool::api {
namespace {

TEST_CASE("without --slurm_cluster every cluster is served") {
  absl::StatusOr<ServedCluster> all = ServedCluster::FromFlags("", "");
  REQUIRE(all.ok());
  CHECK(all->Serves("hpc/research"));
  CHECK(all->Serves("other/x"));
  CHECK(all->watch_namespace().empty());
  CHECK(all->ToString().empty());
  absl::StatusOr<ServedCluster> one_namespace = ServedCluster::FromFlags("", "hpc");
  REQUIRE(one_namespace.ok());
  CHECK(one_namespace->watch_namespace() == "hpc");
}

TEST_CASE("with --slurm_cluster only that cluster is served, and its namespace watched") {
  absl::StatusOr<ServedCluster> served = ServedCluster::FromFlags("hpc/research", "");
  REQUIRE(served.ok());
  CHECK(served->Serves("hpc/research"));
  CHECK_FALSE(served->Serves("hpc/training"));
  CHECK_FALSE(served->Serves("lab/research"));
  CHECK_FALSE(served->Serves(""));
  CHECK(served->watch_namespace() == "hpc");
  CHECK(served->ToString() == "hpc/research");
  CHECK(ServedCluster::FromFlags("hpc/research", "hpc").ok());
}

TEST_CASE("a bad --slurm_cluster, or a watched namespace without it, is refused") {
  absl::Status bad = ServedCluster::FromFlags("research", "").status();
  CHECK(absl::IsInvalidArgument(bad));
  CHECK(absl::StrContains(bad.message(), "--slurm_cluster=\"research\""));
  absl::Status elsewhere = ServedCluster::FromFlags("hpc/research", "lab").status();
  CHECK(absl::IsInvalidArgument(elsewhere));
  CHECK(absl::StrContains(elsewhere.message(), "--watch_namespace=\"lab\""));
  CHECK(absl::StrContains(elsewhere.message(), "\"hpc\""));
}

}  // namespace
}  // namespace tidepool::api

#include "scheduler_name.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::podsched {
namespace {

using tidepool::v1::SlurmCluster;

SlurmCluster Cluster(const std::string& ns, const std::string& name, const std::string& created,
                     bool enabled, const std::string& scheduler = "tidepool") {
  SlurmCluster cluster;
  cluster.mutable_metadata()->set_namespace_(ns);
  cluster.mutable_metadata()->set_name(name);
  cluster.mutable_metadata()->set_creation_timestamp(created);
  cluster.mutable_spec()->mutable_pod_scheduler()->set_enabled(enabled);
  cluster.mutable_spec()->mutable_pod_scheduler()->set_scheduler_name(scheduler);
  return cluster;
}

TEST_CASE("a cluster alone answers to its scheduler name; disabled or absent, to none") {
  CHECK(ChooseSchedulerName("hpc/research",
                            {Cluster("hpc", "research", "2026-01-01T00:00:00Z", true, "gpu")}) ==
        SchedulerChoice{.name = "gpu"});
  CHECK(ChooseSchedulerName("hpc/research",
                            {Cluster("hpc", "research", "2026-01-01T00:00:00Z", true, "")})
            .name == "tidepool");
  CHECK(ChooseSchedulerName("hpc/research", {Cluster("hpc", "research", "2026-01-01T00:00:00Z",
                                                     false)}) == SchedulerChoice{});
  CHECK(ChooseSchedulerName("hpc/research", {}) == SchedulerChoice{});
}

TEST_CASE("of two clusters with one scheduler name, the one made later places nothing") {
  const std::vector<SlurmCluster> clusters = {
      Cluster("hpc", "research", "2026-03-01T00:00:00Z", true),
      Cluster("lab", "older", "2026-02-01T00:00:00Z", true),
      Cluster("lab", "oldest-off", "2026-01-01T00:00:00Z", false),
      Cluster("lab", "other-name", "2026-01-01T00:00:00Z", true, "gpu")};
  CHECK(ChooseSchedulerName("hpc/research", clusters) ==
        SchedulerChoice{.name = "", .taken_by = "lab/older"});
  CHECK(ChooseSchedulerName("lab/older", clusters) == SchedulerChoice{.name = "tidepool"});
  CHECK(ChooseSchedulerName("lab/other-name", clusters) == SchedulerChoice{.name = "gpu"});
}

TEST_CASE("made in the same second, the lesser namespace/name keeps the scheduler name") {
  const std::vector<SlurmCluster> clusters = {Cluster("b", "x", "2026-03-01T00:00:00Z", true),
                                              Cluster("a", "y", "2026-03-01T00:00:00Z", true)};
  CHECK(ChooseSchedulerName("a/y", clusters).name == "tidepool");
  CHECK(ChooseSchedulerName("b/x", clusters).taken_by == "a/y");
}

}  // namespace
}  // namespace tidepool::podsched

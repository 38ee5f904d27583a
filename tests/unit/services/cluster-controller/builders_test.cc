#include "builders.h"

#include <catch2/catch_test_macros.hpp>

#include "absl/strings/match.h"

namespace tidepool::cluster {
namespace {

v1::SlurmCluster Cluster() {
  v1::SlurmCluster cluster;
  cluster.mutable_metadata()->set_name("research");
  cluster.mutable_metadata()->set_namespace_("hpc");
  cluster.mutable_metadata()->set_uid("uid-1");
  return cluster;
}

TEST_CASE("the ConfigMap carries the files, labels, hash and its owner") {
  v1::RenderResponse rendered;
  rendered.set_config_hash("sha256:abc");
  auto* file = rendered.add_files();
  file->set_name("slurm.conf");
  file->set_content("ClusterName=research\n");
  const std::string body = ConfigMapApplyBody(Cluster(), rendered);
  CHECK(absl::StrContains(body, R"("name":"research-slurm-config","namespace":"hpc")"));
  CHECK(absl::StrContains(body, R"("tidepool.dev/component":"slurm-config")"));
  CHECK(absl::StrContains(body, R"("tidepool.dev/cluster":"research")"));
  CHECK(absl::StrContains(body, R"("tidepool.dev/config-hash":"sha256:abc")"));
  CHECK(absl::StrContains(
      body, R"("kind":"SlurmCluster","name":"research","uid":"uid-1","controller":true)"));
  CHECK(absl::StrContains(body, R"("data":{"slurm.conf":"ClusterName=research\n"})"));
}

TEST_CASE("status says rendered and applied, or why not") {
  const absl::Time now = absl::FromUnixSeconds(1'800'000'000);
  ConfigLoopOutcome applied{.generation = 3,
                            .rendered = true,
                            .rendered_hash = "sha256:b",
                            .applied_hash = "sha256:b",
                            .nodes = 16,
                            .partitions = 1};
  std::string patch = StatusPatch(applied, {}, now);
  CHECK(absl::StrContains(patch, R"("observedGeneration":3,"configHash":"sha256:b","nodes":16)"));
  CHECK(absl::StrContains(patch, R"("type":"ConfigRendered","status":"True","reason":"Rendered")"));
  CHECK(absl::StrContains(patch, R"("type":"Ready","status":"True","reason":"ConfigApplied")"));

  ConfigLoopOutcome pending = applied;
  pending.applied_hash = "sha256:a";
  CHECK(absl::StrContains(StatusPatch(pending, {}, now),
                          R"("type":"Ready","status":"False","reason":"ConfigPropagating")"));
  pending.reconfigure_error = "slurm-syncer Reconfigure: connection refused";
  CHECK(absl::StrContains(StatusPatch(pending, {}, now), "ReconfigureFailed"));

  ConfigLoopOutcome invalid{
      .generation = 4, .render_error = "spec.extraConfig: NodeName", .applied_hash = "sha256:a"};
  patch = StatusPatch(invalid, {}, now);
  CHECK(absl::StrContains(
      patch,
      R"("type":"ConfigRendered","status":"False","reason":"RenderFailed","message":"spec.extraConfig: NodeName")"));
  CHECK(absl::StrContains(patch, R"("configHash":"sha256:a")"));  // Slurm still runs the old one
}

TEST_CASE("an unchanged status is recognised so nothing is written") {
  const ConfigLoopOutcome outcome{.generation = 3,
                                  .rendered = true,
                                  .rendered_hash = "h",
                                  .applied_hash = "h",
                                  .nodes = 2,
                                  .partitions = 1};
  std::map<std::string, k8s::Condition> current = {
      {"ConfigRendered",
       {"ConfigRendered", "True", "Rendered", "2 nodes in 1 partitions, h", "t", 3}},
      {"Ready", {"Ready", "True", "ConfigApplied", "Slurm was reconfigured with h", "t", 3}}};
  CHECK(StatusUnchanged(outcome, "h", 3, current));
  CHECK_FALSE(StatusUnchanged(outcome, "old", 3, current));
  CHECK_FALSE(StatusUnchanged(outcome, "h", 2, current));
  current["Ready"].status = "False";
  CHECK_FALSE(StatusUnchanged(outcome, "h", 3, current));
}

TEST_CASE("a condition keeps its transition time while its status holds") {
  const std::map<std::string, k8s::Condition> current = {
      {"Ready", {"Ready", "True", "ConfigApplied", "old message", "2026-01-01T00:00:00Z", 1}}};
  const ConfigLoopOutcome outcome{
      .generation = 2, .rendered = true, .rendered_hash = "h", .applied_hash = "h"};
  CHECK(absl::StrContains(
      StatusPatch(outcome, current, absl::FromUnixSeconds(1'800'000'000)),
      R"("type":"Ready","status":"True","reason":"ConfigApplied","message":"Slurm was reconfigured with h","lastTransitionTime":"2026-01-01T00:00:00Z")"));
}

}  // namespace
}  // namespace tidepool::cluster

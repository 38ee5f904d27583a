#include "status.h"

#include <catch2/catch_test_macros.hpp>
#include <cstdint>
#include <map>
#include <string>

#include "absl/strings/match.h"

namespace tidepool::cluster {
namespace {

TEST_CASE("status says rendered and applied, or why not") {
  const absl::Time now = absl::FromUnixSeconds(1'800'000'000);
  ClusterOutcome applied{.generation = 3,
                         .auth = {.ready = true},
                         .config = {.rendered = true,
                                    .rendered_hash = "sha256:b",
                                    .applied_hash = "sha256:b",
                                    .nodes = 16,
                                    .partitions = 1}};
  std::string patch = StatusPatch(applied, {}, now);
  CHECK(absl::StrContains(patch, R"("observedGeneration":3,"configHash":"sha256:b","nodes":16)"));
  CHECK(absl::StrContains(patch, R"("type":"ConfigRendered","status":"True","reason":"Rendered")"));
  CHECK(absl::StrContains(patch, R"("type":"Ready","status":"True","reason":"ConfigApplied")"));

  ClusterOutcome pending = applied;
  pending.config.applied_hash = "sha256:a";
  CHECK(absl::StrContains(StatusPatch(pending, {}, now),
                          R"("type":"Ready","status":"False","reason":"ConfigPropagating")"));
  ClusterOutcome not_loaded = pending;
  not_loaded.config.load_pending =
      "reconfigured; slurmctld has not loaded sha256:b yet: slurmctld does not list cpu-03";
  patch = StatusPatch(not_loaded, {}, now);
  CHECK(absl::StrContains(patch, R"("type":"Ready","status":"False","reason":"ConfigNotLoaded")"));
  CHECK(absl::StrContains(patch, "slurmctld does not list cpu-03"));
  CHECK(absl::StrContains(patch, R"("configHash":"sha256:a")"));
  pending.config.reconfigure_error = "slurm-syncer Reconfigure: connection refused";
  CHECK(absl::StrContains(StatusPatch(pending, {}, now), "ReconfigureFailed"));

  ClusterOutcome invalid{
      .generation = 4,
      .auth = {.ready = true},
      .config = {.render_error = "spec.extraConfig: NodeName", .applied_hash = "sha256:a"}};
  patch = StatusPatch(invalid, {}, now);
  CHECK(absl::StrContains(
      patch,
      R"("type":"ConfigRendered","status":"False","reason":"RenderFailed","message":"spec.extraConfig: NodeName")"));
  CHECK(absl::StrContains(patch, R"("configHash":"sha256:a")"));  // Slurm still runs the old one
}

TEST_CASE("unusable auth Secrets make the cluster not Ready, whatever the config") {
  const absl::Time now = absl::FromUnixSeconds(1'800'000'000);
  const ClusterOutcome outcome{
      .generation = 5,
      .auth = {.error = R"(Secret "research-munge-key" has no data key "munge.key")"},
      .config = {.rendered = true,
                 .rendered_hash = "sha256:b",
                 .applied_hash = "sha256:b",
                 .nodes = 2,
                 .partitions = 1}};
  const std::string patch = StatusPatch(outcome, {}, now);
  CHECK(absl::StrContains(
      patch,
      R"("type":"Ready","status":"False","reason":"AuthSecretInvalid","message":"Secret \"research-munge-key\" has no data key \"munge.key\"")"));
  // The config conditions say what they said before.
  CHECK(absl::StrContains(patch, R"("type":"ConfigRendered","status":"True","reason":"Rendered")"));
  CHECK(absl::StrContains(patch, R"("configHash":"sha256:b")"));

  const std::map<std::string, k8s::Condition> current = {
      {"ConfigRendered",
       {"ConfigRendered", "True", "Rendered", "2 nodes in 1 partitions, sha256:b", "t", 5}},
      {"Ready", {"Ready", "False", "AuthSecretInvalid", outcome.auth.error, "t", 5}}};
  const ClusterStatusView view{
      .config_hash = "sha256:b", .observed_generation = 5, .conditions = current};
  CHECK(StatusUnchanged(outcome, view));
  ClusterOutcome fixed = outcome;
  fixed.auth = {.ready = true};
  CHECK_FALSE(StatusUnchanged(fixed, view));
  CHECK(absl::StrContains(StatusPatch(fixed, view, now),
                          R"("type":"Ready","status":"True","reason":"ConfigApplied")"));
}

TEST_CASE("an unchanged status is recognised so nothing is written") {
  const ClusterOutcome outcome{.generation = 3,
                               .auth = {.ready = true},
                               .config = {.rendered = true,
                                          .rendered_hash = "h",
                                          .applied_hash = "h",
                                          .nodes = 2,
                                          .partitions = 1}};
  std::map<std::string, k8s::Condition> current = {
      {"ConfigRendered",
       {"ConfigRendered", "True", "Rendered", "2 nodes in 1 partitions, h", "t", 3}},
      {"Ready", {"Ready", "True", "ConfigApplied", "Slurm was reconfigured with h", "t", 3}}};
  auto view = [&](std::string hash, int64_t generation) {
    return ClusterStatusView{
        .config_hash = hash, .observed_generation = generation, .conditions = current};
  };
  CHECK(StatusUnchanged(outcome, view("h", 3)));
  CHECK_FALSE(StatusUnchanged(outcome, view("old", 3)));
  CHECK_FALSE(StatusUnchanged(outcome, view("h", 2)));
  current["Ready"].status = "False";
  CHECK_FALSE(StatusUnchanged(outcome, view("h", 3)));
}

TEST_CASE("a condition keeps its transition time while its status holds") {
  const std::map<std::string, k8s::Condition> current = {
      {"Ready", {"Ready", "True", "ConfigApplied", "old message", "2026-01-01T00:00:00Z", 1}}};
  const ClusterOutcome outcome{
      .generation = 2,
      .auth = {.ready = true},
      .config = {.rendered = true, .rendered_hash = "h", .applied_hash = "h"}};
  CHECK(absl::StrContains(
      StatusPatch(outcome, {.conditions = current}, absl::FromUnixSeconds(1'800'000'000)),
      R"("type":"Ready","status":"True","reason":"ConfigApplied","message":"Slurm was reconfigured with h","lastTransitionTime":"2026-01-01T00:00:00Z")"));
}

TEST_CASE("a control plane of pods adds ControllerAvailable, and Ready waits for it") {
  const absl::Time now = absl::FromUnixSeconds(1'800'000'000);
  ClusterOutcome outcome{
      .generation = 5,
      .auth = {.ready = true},
      .controller = {.managed = true, .applied = true, .replicas = 2, .ready_replicas = 1},
      .config = {.rendered = true, .rendered_hash = "h", .applied_hash = "h"}};
  std::string patch = StatusPatch(outcome, {}, now);
  CHECK(absl::StrContains(
      patch,
      R"("type":"ControllerAvailable","status":"True","reason":"SlurmctldReady","message":"1 of 2 slurmctld ready")"));
  CHECK(absl::StrContains(patch, R"("type":"Ready","status":"True")"));

  outcome.controller.ready_replicas = 0;
  outcome.controller.pod_selector = "tidepool.dev/component=slurmctld";
  patch = StatusPatch(outcome, {}, now);
  CHECK(absl::StrContains(
      patch, R"("type":"ControllerAvailable","status":"False","reason":"SlurmctldNotReady")"));
  CHECK(absl::StrContains(patch, "kubectl get pods -l tidepool.dev/component=slurmctld"));
  CHECK(absl::StrContains(
      patch,
      R"("type":"Ready","status":"False","reason":"SlurmctldNotReady","message":"ControllerAvailable: 0 of 2)"));

  outcome.controller = {.managed = true,
                        .applied = false,
                        .blocked_reason = "InvalidSpec",
                        .error = "spec.images.controller is empty"};
  patch = StatusPatch(outcome, {}, now);
  CHECK(absl::StrContains(
      patch,
      R"("type":"ControllerAvailable","status":"False","reason":"InvalidSpec","message":"spec.images.controller is empty")"));

  outcome.auth = {.ready = false, .error = "Secret hpc/x has no munge.key"};
  CHECK(absl::StrContains(
      StatusPatch(outcome, {}, now),
      R"("type":"Ready","status":"False","reason":"AuthSecretInvalid","message":"Secret hpc/x has no munge.key")"));
}

TEST_CASE("StorageMatchesSpec says which claims cannot follow the spec, apart from Ready") {
  const absl::Time now = absl::FromUnixSeconds(1'800'000'000);
  ClusterOutcome outcome{
      .generation = 5,
      .auth = {.ready = true},
      .controller = {.managed = true, .applied = true, .replicas = 1, .ready_replicas = 1},
      .config = {.rendered = true, .rendered_hash = "h", .applied_hash = "h"}};
  CHECK(absl::StrContains(
      StatusPatch(outcome, {}, now),
      R"("type":"StorageMatchesSpec","status":"True","reason":"ClaimsAsSpecified")"));
  outcome.storage = {{.reason = "ClaimCannotShrink", .message = "state: keeps 50Gi"},
                     {.reason = "ClaimClassImmutable", .message = "data: class slow"}};
  const std::string patch = StatusPatch(outcome, {}, now);
  CHECK(absl::StrContains(
      patch,
      R"("type":"StorageMatchesSpec","status":"False","reason":"ClaimCannotShrink","message":"state: keeps 50Gi; data: class slow")"));
  // The claims still hold the data: the cluster stays Ready.
  CHECK(absl::StrContains(patch, R"("type":"Ready","status":"True")"));
  // A spec too invalid to compare the claims with: not known either way.
  outcome.storage.clear();
  outcome.storage_unchecked = true;
  CHECK(absl::StrContains(
      StatusPatch(outcome, {}, now),
      R"("type":"StorageMatchesSpec","status":"Unknown","reason":"ClaimsNotChecked")"));
  // Without a claim of ours (an external control plane), no such condition; with the
  // managed database alone, one.
  outcome.storage_unchecked = false;
  outcome.controller = {};
  CHECK_FALSE(absl::StrContains(StatusPatch(outcome, {}, now), "StorageMatchesSpec"));
  outcome.accounting_database = {.managed = true, .applied = true, .replicas = 1};
  CHECK(absl::StrContains(StatusPatch(outcome, {}, now),
                          R"("type":"StorageMatchesSpec","status":"True")"));
}

TEST_CASE("RestApiAvailable follows slurmrestd, and Ready waits for it too") {
  const absl::Time now = absl::FromUnixSeconds(1'800'000'000);
  ClusterOutcome outcome{
      .generation = 2,
      .auth = {.ready = true},
      .controller = {.managed = true, .applied = true, .replicas = 1, .ready_replicas = 1},
      .rest_api = {.managed = true, .applied = true, .replicas = 1, .ready_replicas = 0},
      .config = {.rendered = true, .rendered_hash = "h", .applied_hash = "h"}};
  std::string patch = StatusPatch(outcome, {}, now);
  CHECK(absl::StrContains(
      patch, R"("type":"RestApiAvailable","status":"False","reason":"SlurmrestdNotReady")"));
  CHECK(
      absl::StrContains(patch, R"("type":"Ready","status":"False","reason":"SlurmrestdNotReady")"));
  outcome.rest_api.ready_replicas = 1;
  patch = StatusPatch(outcome, {}, now);
  CHECK(absl::StrContains(
      patch,
      R"("type":"RestApiAvailable","status":"True","reason":"SlurmrestdReady","message":"1 of 1 slurmrestd ready")"));
  CHECK(absl::StrContains(patch, R"("type":"Ready","status":"True")"));
}

TEST_CASE("AccountingAvailable follows slurmdbd and says what it waits for") {
  const absl::Time now = absl::FromUnixSeconds(1'800'000'000);
  ClusterOutcome outcome{.generation = 2,
                         .auth = {.ready = true},
                         .accounting = {.managed = true,
                                        .blocked_reason = "WaitingForDatabase",
                                        .error = "slurmdbd waits for the accounting database: x"},
                         .config = {.rendered = true, .rendered_hash = "h", .applied_hash = "h"}};
  std::string patch = StatusPatch(outcome, {}, now);
  CHECK(absl::StrContains(
      patch,
      R"("type":"AccountingAvailable","status":"False","reason":"WaitingForDatabase","message":"slurmdbd waits for the accounting database: x")"));
  CHECK(
      absl::StrContains(patch, R"("type":"Ready","status":"False","reason":"WaitingForDatabase")"));
  outcome.accounting = {.managed = true, .applied = true, .replicas = 1, .ready_replicas = 1};
  patch = StatusPatch(outcome, {}, now);
  CHECK(absl::StrContains(
      patch, R"("type":"AccountingAvailable","status":"True","reason":"SlurmdbdReady")"));
  CHECK(absl::StrContains(patch, R"("type":"Ready","status":"True")"));
  outcome.accounting = {};
  CHECK_FALSE(absl::StrContains(StatusPatch(outcome, {}, now), "AccountingAvailable"));
}

TEST_CASE("LoginAvailable follows the login pods when managed, and Ready waits for it") {
  const absl::Time now = absl::FromUnixSeconds(1'800'000'000);
  ClusterOutcome outcome{
      .generation = 2,
      .auth = {.ready = true},
      .controller = {.managed = true, .applied = true, .replicas = 1, .ready_replicas = 1},
      .rest_api = {.managed = true, .applied = true, .replicas = 1, .ready_replicas = 1},
      .config = {.rendered = true, .rendered_hash = "h", .applied_hash = "h"}};
  CHECK_FALSE(absl::StrContains(StatusPatch(outcome, {}, now), "LoginAvailable"));

  outcome.login = {.managed = true,
                   .blocked_reason = "LoginUsersInvalid",
                   .error = "Secret \"keys\" named in spec.login.sshKeysSecret does not exist"};
  std::string patch = StatusPatch(outcome, {}, now);
  CHECK(absl::StrContains(
      patch, R"("type":"LoginAvailable","status":"False","reason":"LoginUsersInvalid")"));
  CHECK(
      absl::StrContains(patch, R"("type":"Ready","status":"False","reason":"LoginUsersInvalid")"));
  outcome.login = {.managed = true, .applied = true, .replicas = 2, .ready_replicas = 1};
  patch = StatusPatch(outcome, {}, now);
  CHECK(absl::StrContains(
      patch,
      R"("type":"LoginAvailable","status":"True","reason":"SshdReady","message":"1 of 2 sshd ready")"));
  CHECK(absl::StrContains(patch, R"("type":"Ready","status":"True")"));
}

TEST_CASE("an external control plane has no ControllerAvailable condition") {
  const ClusterOutcome outcome{
      .generation = 1,
      .auth = {.ready = true},
      .config = {.rendered = true, .rendered_hash = "h", .applied_hash = "h"}};
  const std::string patch = StatusPatch(outcome, {}, absl::FromUnixSeconds(1'800'000'000));
  CHECK_FALSE(absl::StrContains(patch, "ControllerAvailable"));
  CHECK(absl::StrContains(patch, R"("type":"Ready","status":"True")"));
}

}  // namespace
}  // namespace tidepool::cluster

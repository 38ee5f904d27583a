#include "status.h"

#include <catch2/catch_test_macros.hpp>

#include "absl/strings/match.h"
#include "k8s/object_json.h"
#include "plan_fixture.h"

namespace tidepool::nodeset {
namespace {

using testing::Feasible;
using testing::kHash;
using testing::Pod;
using testing::Reachable;
using testing::SlurmNode;
using tidepool::v1::Condition;
using tidepool::v1::NodeSetStatus;

const absl::Time kNow = absl::FromUnixSeconds(1796209752);

const Condition* Find(const NodeSetStatus& status, const std::string& type) {
  for (const Condition& condition : status.conditions()) {
    if (condition.type() == type) return &condition;
  }
  return nullptr;
}

struct Scenario {
  SlurmView slurm;
  PlanInput input;
  Plan plan;

  NodeSetStatus Compute(const NodeSetStatus* previous = nullptr, absl::Time now = kNow,
                        std::string pod_error = "") {
    input.slurm = &slurm;
    plan = PlanNodeSet(input);
    return ComputeStatus({.node_set_name = "h100",
                          .generation = 4,
                          .observed = &input,
                          .plan = &plan,
                          .pod_error = std::move(pod_error),
                          .previous = previous,
                          .now = now});
  }
};

// Four feasible Nodes, replicas 3: one current ready pod idle in Slurm, one current
// ready pod running a job and drained by a person, one outdated pod not ready (Slurm
// down), and a pod on a Node the NodeSet may no longer use.
Scenario Mixed() {
  Scenario s;
  s.slurm = Reachable({SlurmNode("n-01", "IDLE"), SlurmNode("n-02", "ALLOCATED", true, "fan"),
                       SlurmNode("n-03", "DOWN"), SlurmNode("n-09", "IDLE")});
  s.input = {.replicas = 3,
             .name_prefix = "n",
             .template_hash = kHash,
             .feasible = Feasible({"a", "b", "c", "d"}),
             .pods = {Pod("n-01", "a"), Pod("n-02", "b"), Pod("n-03", "c", false, "old"),
                      Pod("n-09", "elsewhere")}};
  return s;
}

TEST_CASE("status counts come from the observed pods, Nodes and Slurm view") {
  Scenario s = Mixed();
  const NodeSetStatus status = s.Compute();
  CHECK(status.observed_generation() == 4);
  CHECK(status.desired_number_scheduled() == 3);
  CHECK(status.number_feasible() == 4);
  CHECK(status.current_number_scheduled() == 3);
  CHECK(status.updated_number_scheduled() == 2);
  CHECK(status.number_ready() == 2);
  CHECK(status.number_drain() == 1);
  CHECK(status.number_misscheduled() == 1);
  CHECK(status.number_unavailable() == 1);
  CHECK(status.slurm_idle() == 2);
  CHECK(status.slurm_allocated() == 1);
  CHECK(status.slurm_down() == 1);
  CHECK(status.selector() == "tidepool.dev/nodeset=h100");
}

TEST_CASE("conditions say what is available, what is in progress and whether Slurm is seen") {
  Scenario s = Mixed();
  const NodeSetStatus status = s.Compute();
  const Condition* available = Find(status, "Available");
  REQUIRE(available != nullptr);
  CHECK(available->status() == "False");
  CHECK(available->reason() == "PodsUnavailable");
  CHECK(available->message() == "1 of 3 desired pods not ready");
  const Condition* progressing = Find(status, "Progressing");
  REQUIRE(progressing != nullptr);
  CHECK(progressing->status() == "True");
  CHECK(progressing->observed_generation() == 4);
  const Condition* slurm = Find(status, "SlurmUnreachable");
  REQUIRE(slurm != nullptr);
  CHECK(slurm->status() == "False");
  CHECK(slurm->last_transition_time() == "2026-12-02T11:09:12Z");
}

TEST_CASE("pods left for later syncs count as to create") {
  Scenario s;
  s.slurm = Reachable({});
  s.input = {.name_prefix = "n",
             .template_hash = kHash,
             .feasible = Feasible({"a", "b", "c"}),
             .max_creates = 1};
  const NodeSetStatus status = s.Compute();
  const Condition* progressing = Find(status, "Progressing");
  REQUIRE(progressing != nullptr);
  CHECK(progressing->status() == "True");
  CHECK(progressing->reason() == "CreatingPods");
  CHECK(absl::StrContains(progressing->message(), "3 to create"));
}

TEST_CASE("a settled NodeSet is Available and not Progressing") {
  Scenario s;
  s.slurm = Reachable({SlurmNode("n-01", "IDLE")});
  s.input = {.name_prefix = "n",
             .template_hash = kHash,
             .feasible = Feasible({"a"}),
             .pods = {Pod("n-01", "a")}};
  const NodeSetStatus status = s.Compute();
  CHECK(Find(status, "Available")->status() == "True");
  CHECK(Find(status, "Progressing")->status() == "False");
  CHECK(Find(status, "Progressing")->reason() == "Reconciled");
  CHECK(status.number_unavailable() == 0);
}

TEST_CASE("an unreachable syncer shows as a condition and blocks deletions") {
  Scenario s = Mixed();
  s.slurm.reachable = false;
  s.slurm.unreachable_reason = "slurm-syncer 127.0.0.1:1: connection refused";
  const NodeSetStatus status = s.Compute();
  const Condition* slurm = Find(status, "SlurmUnreachable");
  CHECK(slurm->status() == "True");
  CHECK(slurm->reason() == "SyncerUnavailable");
  CHECK(absl::StrContains(slurm->message(), "connection refused"));
  CHECK(Find(status, "Progressing")->reason() == "DeletionBlocked");
}

TEST_CASE("a pod template that cannot be built stops progress with the reason") {
  Scenario s;
  s.slurm = Reachable({});
  s.input = {.name_prefix = "n", .template_hash = kHash, .feasible = Feasible({"a"})};
  const NodeSetStatus status = s.Compute(nullptr, kNow, "no image");
  CHECK(Find(status, "Progressing")->status() == "False");
  CHECK(Find(status, "Progressing")->reason() == "PodTemplateInvalid");
  CHECK(Find(status, "Progressing")->message() == "no image");
}

TEST_CASE("a missing prolog or epilog ConfigMap stops progress with its own reason") {
  Scenario s;
  s.slurm = Reachable({});
  s.input = {.name_prefix = "n", .template_hash = kHash, .feasible = Feasible({"a"})};
  s.input.slurm = &s.slurm;
  s.plan = PlanNodeSet(s.input);
  const NodeSetStatus status =
      ComputeStatus({.node_set_name = "h100",
                     .generation = 4,
                     .observed = &s.input,
                     .plan = &s.plan,
                     .pod_error = "ConfigMap hpc/research-prolog named in SlurmCluster research "
                                  "spec.prolog.configMap does not exist",
                     .pod_error_reason = "ScriptsConfigMapMissing",
                     .now = kNow});
  CHECK(Find(status, "Progressing")->status() == "False");
  CHECK(Find(status, "Progressing")->reason() == "ScriptsConfigMapMissing");
  CHECK(absl::StrContains(Find(status, "Progressing")->message(), "hpc/research-prolog"));
}

TEST_CASE("lastTransitionTime moves only when a condition's status changes") {
  Scenario s = Mixed();
  const NodeSetStatus first = s.Compute();
  const NodeSetStatus same = s.Compute(&first, kNow + absl::Minutes(5));
  CHECK(SameStatus(first, same));
  s.slurm.reachable = false;
  const NodeSetStatus changed = s.Compute(&first, kNow + absl::Minutes(5));
  CHECK(Find(changed, "SlurmUnreachable")->last_transition_time() == "2026-12-02T11:14:12Z");
  CHECK(Find(changed, "Available")->last_transition_time() == "2026-12-02T11:09:12Z");
}

TEST_CASE("the status patch writes every count as a number, zeros included, and parses back") {
  Scenario s;
  s.slurm = Reachable({});
  s.input = {.name_prefix = "n", .template_hash = kHash};
  const NodeSetStatus status = s.Compute();
  const std::string patch = StatusPatch(status);
  CHECK(absl::StrContains(patch, R"("numberReady":0)"));
  CHECK(absl::StrContains(patch, R"("observedGeneration":4)"));
  CHECK(absl::StrContains(patch, R"("selector":"tidepool.dev/nodeset=h100")"));
  absl::StatusOr<NodeSetStatus> parsed = ParseStatus(patch);
  REQUIRE(parsed.ok());
  CHECK(SameStatus(*parsed, status));
  absl::StatusOr<NodeSetStatus> none = ParseStatus(R"({"metadata":{"name":"x"}})");
  REQUIRE(none.ok());
  CHECK(none->conditions().empty());
}

}  // namespace
}  // namespace tidepool::nodeset

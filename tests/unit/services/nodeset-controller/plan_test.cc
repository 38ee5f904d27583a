#include "plan.h"

#include <algorithm>
#include <catch2/catch_test_macros.hpp>

#include "plan_fixture.h"
#include "tidepool/contract.h"

namespace tidepool::nodeset {
namespace {

using testing::Feasible;
using testing::kHash;
using testing::Pod;
using testing::Reachable;
using testing::SlurmNode;

PlanInput Input(std::vector<FeasibleNode> feasible, std::vector<ObservedPod> pods,
                const SlurmView& slurm) {
  return {.name_prefix = "n",
          .template_hash = kHash,
          .feasible = std::move(feasible),
          .pods = std::move(pods),
          .slurm = &slurm};
}

std::vector<std::string> Names(const std::vector<const ObservedPod*>& pods) {
  std::vector<std::string> names;
  for (const ObservedPod* pod : pods) names.push_back(pod->name);
  return names;
}

TEST_CASE("a new NodeSet gets one pod per feasible Node, named lowest-free, Nodes labelled") {
  const SlurmView slurm = Reachable({});
  const Plan plan = PlanNodeSet(Input(Feasible({"a", "b", "c"}), {}, slurm));
  CHECK(plan.desired == 3);
  REQUIRE(plan.creates.size() == 3);
  CHECK(plan.creates[0].slurm_name == "n-01");
  CHECK(plan.creates[0].node_name == "a");
  CHECK(plan.creates[2].slurm_name == "n-03");
  CHECK(plan.creates[2].node_name == "c");
  CHECK(plan.node_labels.size() == 3);
  CHECK(plan.deletions.empty());
  CHECK_FALSE(plan.Settled());
}

TEST_CASE("a scale-out beyond max_creates is planned in steps that name pods alike") {
  const SlurmView slurm = Reachable({});
  PlanInput input = Input(Feasible({"a", "b", "c", "d", "e"}), {}, slurm);
  input.max_creates = 2;
  const Plan first = PlanNodeSet(input);
  REQUIRE(first.creates.size() == 2);
  CHECK(first.creates[1].slurm_name == "n-02");
  CHECK(first.creates_deferred == 3);
  CHECK(first.node_labels.size() == 2);  // only the Nodes whose pods this step creates
  CHECK_FALSE(first.Settled());

  input.pods = {Pod("n-01", "a"), Pod("n-02", "b")};
  input.feasible[0].slurm_node_label = "n-01";
  input.feasible[1].slurm_node_label = "n-02";
  const Plan second = PlanNodeSet(input);
  REQUIRE(second.creates.size() == 2);
  CHECK(second.creates[0].slurm_name == "n-03");
  CHECK(second.creates[0].node_name == "c");
  CHECK(second.creates_deferred == 1);

  input.max_creates = 3;
  const Plan last = PlanNodeSet(input);
  CHECK(last.creates.size() == 3);
  CHECK(last.creates_deferred == 0);
  CHECK(last.creates[2].slurm_name == "n-05");
}

TEST_CASE("replicas caps the pods at min(replicas, feasible)") {
  const SlurmView slurm = Reachable({});
  PlanInput input = Input(Feasible({"a", "b", "c"}), {}, slurm);
  input.replicas = 2;
  CHECK(PlanNodeSet(input).creates.size() == 2);
  input.replicas = 7;
  CHECK(PlanNodeSet(input).desired == 3);
  input.replicas = 0;
  CHECK(PlanNodeSet(input).creates.empty());
}

TEST_CASE("a settled NodeSet plans nothing and labels nothing") {
  const SlurmView slurm = Reachable({SlurmNode("n-01", "IDLE"), SlurmNode("n-02", "IDLE")});
  std::vector<FeasibleNode> feasible = Feasible({"a", "b"});
  feasible[0].slurm_node_label = "n-01";
  feasible[1].slurm_node_label = "n-02";
  const Plan plan = PlanNodeSet(Input(feasible, {Pod("n-01", "a"), Pod("n-02", "b")}, slurm));
  CHECK(plan.Settled());
  CHECK(plan.node_labels.empty());
  CHECK(plan.member_nodes.size() == 2);
}

TEST_CASE("a new pod takes its Node's kept name, unless a pod elsewhere holds it") {
  const SlurmView slurm = Reachable({});
  std::vector<FeasibleNode> feasible = Feasible({"a", "b", "c"});
  feasible[2].planned_slurm_name = "n-01";  // c's label says n-01 ...
  feasible[2].slurm_node_label = "n-01";
  feasible[0].planned_slurm_name = "n-02";
  feasible[1].planned_slurm_name = "n-03";
  // ... but a pod on a (label lost) already is n-01.
  const Plan plan = PlanNodeSet(Input(feasible, {Pod("n-01", "a")}, slurm));
  REQUIRE(plan.creates.size() == 2);
  CHECK(plan.creates[0].node_name == "b");
  CHECK(plan.creates[0].slurm_name == "n-03");
  CHECK(plan.creates[1].node_name == "c");
  CHECK(plan.creates[1].slurm_name == "n-02");  // lowest ordinal nobody holds
}

TEST_CASE("a pod deleted by hand is replaced on its Node once it is gone") {
  const SlurmView slurm = Reachable({});
  std::vector<FeasibleNode> feasible = Feasible({"a", "b"});
  feasible[1].planned_slurm_name = "n-02";
  feasible[1].slurm_node_label = "n-02";
  ObservedPod going = Pod("n-02", "b");
  going.deleting = true;
  Plan plan = PlanNodeSet(Input(feasible, {Pod("n-01", "a"), going}, slurm));
  CHECK(plan.creates.empty());
  CHECK(plan.awaiting_replacement == 1);
  plan = PlanNodeSet(Input(feasible, {Pod("n-01", "a")}, slurm));
  REQUIRE(plan.creates.size() == 1);
  CHECK(plan.creates[0].slurm_name == "n-02");
  CHECK(plan.creates[0].node_name == "b");
}

TEST_CASE("scale-in victims: not ready, then idle, then draining, then running") {
  const SlurmView slurm =
      Reachable({SlurmNode("n-01", "ALLOCATED"), SlurmNode("n-02", "ALLOCATED", true, "x"),
                 SlurmNode("n-03", "IDLE"), SlurmNode("n-04", "IDLE"), SlurmNode("n-05", "MIXED")});
  const ObservedPod running = Pod("n-01", "a");
  const ObservedPod draining = Pod("n-02", "b");
  const ObservedPod idle_low = Pod("n-03", "c");
  const ObservedPod idle_high = Pod("n-04", "d");
  const ObservedPod not_ready = Pod("n-05", "e", false);
  const std::vector<std::string> order =
      Names(OrderVictims({&running, &draining, &idle_low, &idle_high, &not_ready}, "n", slurm));
  CHECK(order == std::vector<std::string>{"n-05", "n-04", "n-03", "n-02", "n-01"});
}

TEST_CASE("a down Slurm node ranks with not-ready pods; one unknown to Slurm as idle") {
  const SlurmView slurm = Reachable({SlurmNode("n-01", "DOWN"), SlurmNode("n-03", "ALLOCATED")});
  CHECK(RankVictim(Pod("n-01", "a"), slurm) == VictimRank::kNotReady);
  CHECK(RankVictim(Pod("n-02", "b"), slurm) == VictimRank::kIdle);
  CHECK(RankVictim(Pod("n-03", "c"), slurm) == VictimRank::kRunning);
}

TEST_CASE("scale-in drains the victim first, waits for its jobs, deletes it drained") {
  std::vector<ObservedPod> pods = {Pod("n-01", "a"), Pod("n-02", "b"), Pod("n-03", "c")};
  auto plan_with = [&](const SlurmView& slurm) {
    PlanInput input = Input(Feasible({"a", "b", "c"}), pods, slurm);
    input.replicas = 2;
    return PlanNodeSet(input);
  };
  SECTION("idle nodes: the highest ordinal goes, drain first") {
    const SlurmView slurm = Reachable(
        {SlurmNode("n-01", "IDLE"), SlurmNode("n-02", "IDLE"), SlurmNode("n-03", "IDLE")});
    const Plan plan = plan_with(slurm);
    REQUIRE(plan.deletions.size() == 1);
    CHECK(plan.deletions[0].pod == "n-03");
    CHECK(plan.deletions[0].uid == "uid-c");
    CHECK(plan.deletions[0].cause == DeletionCause::kScaleIn);
    CHECK(plan.deletions[0].step == DeletionStep::kDrain);
    CHECK(std::string(DrainReasonFor(plan.deletions[0].cause)) == "k8s: scale-in");
  }
  SECTION("a job on every node: the victim waits while draining") {
    const SlurmView slurm =
        Reachable({SlurmNode("n-01", "ALLOCATED"), SlurmNode("n-02", "ALLOCATED"),
                   SlurmNode("n-03", "ALLOCATED", true, api::kScaleInDrainReason)});
    const Plan plan = plan_with(slurm);
    REQUIRE(plan.deletions.size() == 1);
    CHECK(plan.deletions[0].pod == "n-03");
    CHECK(plan.deletions[0].step == DeletionStep::kWaitForJobs);
  }
  SECTION("drained and idle: delete") {
    const SlurmView slurm =
        Reachable({SlurmNode("n-01", "ALLOCATED"), SlurmNode("n-02", "ALLOCATED"),
                   SlurmNode("n-03", "IDLE", true, api::kScaleInDrainReason)});
    const Plan plan = plan_with(slurm);
    REQUIRE(plan.deletions.size() == 1);
    CHECK(plan.deletions[0].step == DeletionStep::kDelete);
  }
  SECTION("the syncer unreachable: blocked, nothing to drain or delete") {
    SlurmView slurm;
    slurm.reachable = false;
    const Plan plan = plan_with(slurm);
    REQUIRE(plan.deletions.size() == 1);
    CHECK(plan.deletions[0].step == DeletionStep::kBlocked);
    CHECK(plan.undrains.empty());
  }
}

TEST_CASE("a pod on a Node no longer feasible leaves through the same protected path") {
  const SlurmView slurm = Reachable({SlurmNode("n-02", "ALLOCATED")});
  const Plan plan =
      PlanNodeSet(Input(Feasible({"a"}), {Pod("n-01", "a"), Pod("n-02", "gone")}, slurm));
  REQUIRE(plan.deletions.size() == 1);
  CHECK(plan.deletions[0].pod == "n-02");
  CHECK(plan.deletions[0].cause == DeletionCause::kNotFeasible);
  CHECK(plan.deletions[0].step == DeletionStep::kDrain);
  CHECK(std::string(DrainReasonFor(DeletionCause::kNotFeasible)) == "k8s: scale-in");
}

TEST_CASE("maxUnavailable is a count or a percentage of the desired pods, at least 1") {
  CHECK(ResolveMaxUnavailable("1", 10) == 1);
  CHECK(ResolveMaxUnavailable("3", 10) == 3);
  CHECK(ResolveMaxUnavailable("25%", 10) == 2);
  CHECK(ResolveMaxUnavailable("100%", 4) == 4);
  CHECK(ResolveMaxUnavailable("10%", 3) == 1);
  CHECK(ResolveMaxUnavailable("abc", 3) == 1);
}

TEST_CASE("rolling update replaces outdated pods within maxUnavailable, idle ones first") {
  const SlurmView slurm = Reachable(
      {SlurmNode("n-01", "IDLE"), SlurmNode("n-02", "ALLOCATED"), SlurmNode("n-03", "IDLE")});
  std::vector<ObservedPod> pods = {Pod("n-01", "a", true, "old"), Pod("n-02", "b", true, "old"),
                                   Pod("n-03", "c", true, "old")};
  PlanInput input = Input(Feasible({"a", "b", "c"}), pods, slurm);
  SECTION("one at a time: the idle node with the highest ordinal") {
    const Plan plan = PlanNodeSet(input);
    CHECK(plan.outdated == 3);
    REQUIRE(plan.deletions.size() == 1);
    CHECK(plan.deletions[0].pod == "n-03");
    CHECK(plan.deletions[0].cause == DeletionCause::kUpdate);
    CHECK(plan.deletions[0].step == DeletionStep::kDrain);
  }
  SECTION("two at a time: both idle nodes before the one running a job") {
    input.max_unavailable = 2;
    const Plan plan = PlanNodeSet(input);
    REQUIRE(plan.deletions.size() == 2);
    CHECK(plan.deletions[0].pod == "n-03");
    CHECK(plan.deletions[1].pod == "n-01");
  }
  SECTION("OnDelete replaces nothing") {
    input.strategy = UpdateStrategyType::kOnDelete;
    const Plan plan = PlanNodeSet(input);
    CHECK(plan.deletions.empty());
    CHECK(plan.outdated == 3);
  }
}

TEST_CASE("an update in progress uses the budget; unavailable outdated pods go regardless") {
  const SlurmView slurm = Reachable({SlurmNode("n-01", "IDLE", true, api::kUpdateDrainReason),
                                     SlurmNode("n-02", "IDLE"), SlurmNode("n-03", "IDLE")});
  const ObservedPod updating = Pod("n-01", "a", true, "old");
  const ObservedPod ready = Pod("n-02", "b", true, "old");
  const ObservedPod not_ready = Pod("n-03", "c", false, "old");
  // The update of n-01 and the not-ready n-03 already make two unavailable.
  const std::vector<std::string> selected =
      Names(SelectForUpdate({&updating, &ready, &not_ready}, 2, 2, "n", slurm));
  CHECK(selected == std::vector<std::string>{"n-01", "n-03"});
  CHECK(Names(SelectForUpdate({&updating, &ready}, 1, 2, "n", slurm)) ==
        std::vector<std::string>{"n-01", "n-02"});
}

TEST_CASE("our own drain is cleared once the pod on that node is ready and current") {
  std::vector<FeasibleNode> feasible = Feasible({"a"});
  auto undrains = [&](const ObservedPod& pod, const SlurmView& slurm) {
    return PlanNodeSet(Input(feasible, {pod}, slurm)).undrains;
  };
  const SlurmView ours = Reachable({SlurmNode("n-01", "IDLE", true, api::kUpdateDrainReason)});
  const std::vector<Undrain> cleared = undrains(Pod("n-01", "a"), ours);
  REQUIRE(cleared.size() == 1);
  CHECK(cleared[0].slurm_name == "n-01");
  CHECK(cleared[0].if_reason == "k8s: update");
  CHECK(undrains(Pod("n-01", "a", false), ours).empty());        // not ready yet
  CHECK(undrains(Pod("n-01", "a", true, "old"), ours).empty());  // still outdated
  const SlurmView person = Reachable({SlurmNode("n-01", "IDLE", true, "maintenance")});
  CHECK(undrains(Pod("n-01", "a"), person).empty());  // not ours to clear
  const SlurmView syncer = Reachable({SlurmNode("n-01", "IDLE", true, "k8s: pod not ready")});
  CHECK(undrains(Pod("n-01", "a"), syncer).empty());  // the syncer's own cause
}

}  // namespace
}  // namespace tidepool::nodeset

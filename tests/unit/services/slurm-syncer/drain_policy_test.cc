#include "drain_policy.h"

#include <catch2/catch_test_macros.hpp>

#include "absl/strings/match.h"

namespace tidepool::syncer {
namespace {

using slurm::rest::Node;
using slurm::rest::NodeState;
using slurm::rest::NodeUpdate;
using Action = DrainRequest::Action;

Node NodeWith(std::initializer_list<NodeState> states, std::string reason = "",
              std::string by = "") {
  Node node;
  node.name = "gpu-01";
  node.state = slurm::rest::NodeStateSet(states);
  node.reason = std::move(reason);
  node.reason_set_by_user = std::move(by);
  return node;
}

DrainRequest Drain(std::string reason, bool force = false) {
  return {.node = "gpu-01", .action = Action::kDrain, .reason = std::move(reason), .force = force};
}

DrainRequest Undrain(std::string if_reason = "", bool force = false) {
  return {.node = "gpu-01", .action = Action::kUndrain, .force = force, .if_reason = if_reason};
}

TEST_CASE("only reasons that start with k8s: belong to the syncer") {
  CHECK(IsOwnedReason("k8s: pod not ready"));
  CHECK(IsOwnedReason("k8s:cordon"));
  CHECK_FALSE(IsOwnedReason("K8S: pod not ready"));
  CHECK_FALSE(IsOwnedReason(" k8s: leading space"));
  CHECK_FALSE(IsOwnedReason(""));
}

TEST_CASE("a drain of an idle node sets DRAIN with the reason") {
  auto plan = PlanDrainUpdate(NodeWith({NodeState::kIdle}), Drain("k8s: pod not ready"));
  REQUIRE(plan.ok());
  REQUIRE(plan->has_value());
  CHECK((*plan)->state == NodeUpdate::State::kDrain);
  CHECK((*plan)->reason == "k8s: pod not ready");
}

TEST_CASE("a drain already in place with the same reason sends nothing") {
  auto plan = PlanDrainUpdate(NodeWith({NodeState::kIdle, NodeState::kDrain}, "k8s: x", "slurm"),
                              Drain("k8s: x"));
  REQUIRE(plan.ok());
  CHECK_FALSE(plan->has_value());
}

TEST_CASE("the syncer replaces its own reason with another of its own") {
  auto plan = PlanDrainUpdate(NodeWith({NodeState::kAllocated, NodeState::kDrain}, "k8s: a"),
                              Drain("k8s: b"));
  REQUIRE(plan.ok());
  REQUIRE(plan->has_value());
  CHECK((*plan)->reason == "k8s: b");
}

TEST_CASE("a person's drain is not overwritten without force, and is with it") {
  const Node human = NodeWith({NodeState::kIdle, NodeState::kDrain}, "bad DIMM", "alice");
  auto refused = PlanDrainUpdate(human, Drain("k8s: pod terminating"));
  REQUIRE(absl::IsFailedPrecondition(refused.status()));
  CHECK(absl::StrContains(refused.status().message(), "bad DIMM"));
  CHECK(absl::StrContains(refused.status().message(), "alice"));
  CHECK(absl::StrContains(refused.status().message(), "force"));
  auto forced = PlanDrainUpdate(human, Drain("k8s: pod terminating", /*force=*/true));
  REQUIRE(forced.ok());
  REQUIRE(forced->has_value());
  CHECK((*forced)->reason == "k8s: pod terminating");
}

TEST_CASE("a stale reason on a resumed node holds nothing back") {
  auto plan = PlanDrainUpdate(NodeWith({NodeState::kIdle}, "old maintenance", "alice"),
                              Drain("k8s: pod not ready"));
  REQUIRE(plan.ok());
  CHECK(plan->has_value());
}

TEST_CASE("a reason Slurm set on a DOWN node is not overwritten without force") {
  auto refused = PlanDrainUpdate(NodeWith({NodeState::kDown}, "Not responding", "slurm"),
                                 Drain("k8s: pod not ready"));
  CHECK(absl::IsFailedPrecondition(refused.status()));
}

TEST_CASE("an undrain clears only the syncer's reasons and never resumes") {
  auto plan = PlanDrainUpdate(NodeWith({NodeState::kIdle, NodeState::kDrain}, "k8s: x"), Undrain());
  REQUIRE(plan.ok());
  REQUIRE(plan->has_value());
  CHECK((*plan)->state == NodeUpdate::State::kUndrain);

  auto refused =
      PlanDrainUpdate(NodeWith({NodeState::kIdle, NodeState::kDrain}, "maintenance"), Undrain());
  CHECK(absl::IsFailedPrecondition(refused.status()));
  auto forced = PlanDrainUpdate(NodeWith({NodeState::kIdle, NodeState::kDrain}, "maintenance"),
                                Undrain("", /*force=*/true));
  REQUIRE(forced.ok());
  CHECK(forced->has_value());
}

TEST_CASE("an undrain of a node without DRAIN sends nothing, DOWN or not") {
  for (NodeState base : {NodeState::kIdle, NodeState::kDown}) {
    auto plan = PlanDrainUpdate(NodeWith({base}, "Not responding"), Undrain());
    REQUIRE(plan.ok());
    CHECK_FALSE(plan->has_value());
  }
}

TEST_CASE("if_reason keeps an undrain from clearing another cause's drain") {
  const Node cordoned = NodeWith({NodeState::kIdle, NodeState::kDrain}, "k8s: cordon: upgrade");
  auto refused = PlanDrainUpdate(cordoned, Undrain("k8s: pod not ready"));
  REQUIRE(absl::IsFailedPrecondition(refused.status()));
  CHECK(absl::StrContains(refused.status().message(), "k8s: cordon: upgrade"));
  auto matching = PlanDrainUpdate(cordoned, Undrain("k8s: cordon: upgrade"));
  REQUIRE(matching.ok());
  CHECK(matching->has_value());
}

TEST_CASE("malformed drain requests are refused naming the field") {
  struct Case {
    DrainRequest request;
    const char* field;
  };
  const Case cases[] = {
      {{.node = "", .action = Action::kDrain, .reason = "k8s: x"}, "name"},
      {{.node = "n", .action = Action::kUnspecified}, "action"},
      {{.node = "n", .action = Action::kDrain}, "reason"},
      {{.node = "n", .action = Action::kDrain, .reason = "maintenance"}, "k8s:"},
      {{.node = "n", .action = Action::kDrain, .reason = "k8s: x", .if_reason = "k8s: y"},
       "if_reason"},
      {{.node = "n", .action = Action::kUndrain, .reason = "k8s: x"}, "reason"},
  };
  for (const Case& c : cases) {
    absl::Status status = ValidateDrainRequest(c.request);
    CAPTURE(status.ToString());
    CHECK(absl::IsInvalidArgument(status));
    CHECK(absl::StrContains(status.message(), c.field));
  }
  CHECK(ValidateDrainRequest(
            {.node = "n", .action = Action::kDrain, .reason = "manual", .force = true})
            .ok());
}

}  // namespace
}  // namespace tidepool::syncer

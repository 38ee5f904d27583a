#include "sync_policy.h"

#include <catch2/catch_test_macros.hpp>

#include "absl/strings/match.h"
#include "k8s_observation.h"
#include "tidepool/contract.h"

namespace tidepool::syncer {
namespace {

using slurm::rest::Node;
using slurm::rest::NodeState;

PodObservation ReadyPod() {
  return {.ns = "hpc", .name = "gpu-01", .slurm_node = "gpu-01", .node_name = "k-1", .ready = true};
}

NodeObservation SchedulableNode() { return {.name = "k-1"}; }

Node SlurmNode(std::initializer_list<NodeState> states, std::string reason = "") {
  Node node;
  node.name = "gpu-01";
  node.state = slurm::rest::NodeStateSet(states);
  node.reason = std::move(reason);
  return node;
}

TEST_CASE("the Kubernetes causes of a drain, in order of precedence") {
  PodObservation pod = ReadyPod();
  NodeObservation node = SchedulableNode();
  CHECK_FALSE(DesiredDrainReason(pod, &node, {}).has_value());
  pod.ready = false;
  CHECK(DesiredDrainReason(pod, &node, {}) == "k8s: pod not ready");
  node.conditions["GPUUnhealthy"] = {.status = "True"};
  CHECK(DesiredDrainReason(pod, &node, {"GPUUnhealthy"}) == "k8s: node condition GPUUnhealthy");
  CHECK(DesiredDrainReason(pod, &node, {}) == "k8s: pod not ready");  // not configured
  node.unschedulable = true;
  CHECK(DesiredDrainReason(pod, &node, {"GPUUnhealthy"}) == "k8s: cordon: cordoned");
  node.cordon_reason = "kernel upgrade";
  CHECK(DesiredDrainReason(pod, &node, {}) == "k8s: cordon: kernel upgrade");
  pod.terminating = true;
  CHECK(DesiredDrainReason(pod, &node, {}) == "k8s: pod terminating");
  CHECK(DesiredDrainReason(ReadyPod(), nullptr, {}) == std::nullopt);
}

TEST_CASE("the sync drains with its cause and leaves others' drains and DOWN alone") {
  const std::optional<std::string> cordon = "k8s: cordon: x";
  auto drain = PlanSlurmUpdate(cordon, SlurmNode({NodeState::kIdle}));
  REQUIRE(drain.has_value());
  CHECK(drain->action == DrainRequest::Action::kDrain);
  CHECK(drain->reason == "k8s: cordon: x");
  // Its own other cause is replaced.
  CHECK(PlanSlurmUpdate(cordon,
                        SlurmNode({NodeState::kIdle, NodeState::kDrain}, "k8s: pod not ready"))
            .has_value());
  CHECK_FALSE(
      PlanSlurmUpdate(cordon, SlurmNode({NodeState::kIdle, NodeState::kDrain}, "k8s: cordon: x"))
          .has_value());
  // A person's drain, the nodeset-controller's, and Slurm's DOWN reason hold the node.
  CHECK_FALSE(PlanSlurmUpdate(cordon, SlurmNode({NodeState::kIdle, NodeState::kDrain}, "bad DIMM"))
                  .has_value());
  CHECK_FALSE(
      PlanSlurmUpdate(cordon, SlurmNode({NodeState::kIdle, NodeState::kDrain}, "k8s: scale-in"))
          .has_value());
  CHECK_FALSE(PlanSlurmUpdate(cordon, SlurmNode({NodeState::kDown}, "Not responding")).has_value());
  // A reason left behind on a resumed node (Slurm 24.11 keeps it) is stale.
  CHECK(PlanSlurmUpdate(cordon, SlurmNode({NodeState::kIdle}, "old maintenance")).has_value());
}

TEST_CASE("without a cause the sync clears only its own drains") {
  auto undrain = PlanSlurmUpdate(
      std::nullopt, SlurmNode({NodeState::kIdle, NodeState::kDrain}, "k8s: pod not ready"));
  REQUIRE(undrain.has_value());
  CHECK(undrain->action == DrainRequest::Action::kUndrain);
  CHECK(undrain->if_reason == "k8s: pod not ready");
  CHECK_FALSE(
      PlanSlurmUpdate(std::nullopt, SlurmNode({NodeState::kIdle, NodeState::kDrain}, "k8s: update"))
          .has_value());
  CHECK_FALSE(
      PlanSlurmUpdate(std::nullopt, SlurmNode({NodeState::kIdle, NodeState::kDrain}, "maintenance"))
          .has_value());
  CHECK_FALSE(PlanSlurmUpdate(std::nullopt, SlurmNode({NodeState::kIdle})).has_value());
  CHECK(IsSyncCause("k8s: node condition GPUUnhealthy"));
  CHECK_FALSE(IsSyncCause("k8s: scale-in"));
}

TEST_CASE("pod annotations follow Slurm and are patched only when they differ") {
  PodObservation pod = ReadyPod();
  const Node drained = SlurmNode({NodeState::kIdle, NodeState::kDrain}, "bad DIMM");
  std::optional<std::string> patch = PodAnnotationPatch(pod, drained);
  REQUIRE(patch.has_value());
  CHECK(
      *patch ==
      R"({"metadata":{"annotations":{"tidepool.dev/slurm-state":"IDLE+DRAIN","tidepool.dev/slurm-reason":"bad DIMM"}}})");
  pod.annotations = {{"tidepool.dev/slurm-state", "IDLE+DRAIN"},
                     {"tidepool.dev/slurm-reason", "bad DIMM"}};
  CHECK_FALSE(PodAnnotationPatch(pod, drained).has_value());
  patch = PodAnnotationPatch(pod, SlurmNode({NodeState::kIdle}));
  REQUIRE(patch.has_value());
  CHECK(absl::StrContains(*patch, R"("tidepool.dev/slurm-reason":null)"));
}

TEST_CASE("the pod condition says whether the Slurm node takes work") {
  const absl::Time now = absl::FromUnixSeconds(1'800'000'000);
  PodObservation pod = ReadyPod();
  std::optional<std::string> body = PodConditionApply(pod, SlurmNode({NodeState::kIdle}), now);
  REQUIRE(body.has_value());
  CHECK(absl::StrContains(*body, R"("kind":"Pod")"));
  CHECK(absl::StrContains(*body, R"("namespace":"hpc")"));
  CHECK(absl::StrContains(
      *body, R"("type":"tidepool.dev/SlurmNodeReady","status":"True","reason":"Idle")"));
  pod.conditions[api::kSlurmNodeReadyCondition] = {
      .status = "True", .reason = "Idle", .message = "IDLE"};
  // Still written: the readiness gate is not there yet.
  CHECK(PodConditionApply(pod, SlurmNode({NodeState::kIdle}), now).has_value());
  pod.conditions[api::kSlurmNodeInUseCondition] = {
      .status = "True",
      .reason = "AcceptingJobs",
      .message = "Slurm may start jobs here: drain the Slurm node (a cordon does) before evicting"};
  CHECK_FALSE(PodConditionApply(pod, SlurmNode({NodeState::kIdle}), now).has_value());
  body =
      PodConditionApply(pod, SlurmNode({NodeState::kAllocated, NodeState::kDrain}, "k8s: x"), now);
  REQUIRE(body.has_value());
  CHECK(absl::StrContains(
      *body, R"("status":"False","reason":"Draining","message":"ALLOCATED+DRAIN: k8s: x")"));
}

TEST_CASE(
    "the readiness gate lets the pod be evicted only once its Slurm node is drained and idle") {
  const absl::Time now = absl::FromUnixSeconds(1'800'000'000);
  const PodObservation pod = ReadyPod();
  const auto gate = [&](const Node& slurm) {
    std::optional<std::string> body = PodConditionApply(pod, slurm, now);
    REQUIRE(body.has_value());
    const std::string type = R"("type":"tidepool.dev/SlurmNodeInUse","status":")";
    const size_t at = body->find(type);
    REQUIRE(at != std::string::npos);
    return body->substr(at + type.size(), body->find('"', at + type.size()) - at - type.size());
  };
  CHECK(gate(SlurmNode({NodeState::kIdle})) == "True");
  CHECK(gate(SlurmNode({NodeState::kMixed})) == "True");
  // Draining: jobs still run, so a Node drain must wait.
  CHECK(gate(SlurmNode({NodeState::kAllocated, NodeState::kDrain}, "k8s: cordon: x")) == "True");
  CHECK(gate(SlurmNode({NodeState::kIdle, NodeState::kCompleting, NodeState::kDrain}, "x")) ==
        "True");
  CHECK(gate(SlurmNode({NodeState::kIdle, NodeState::kDrain}, "k8s: cordon: x")) == "False");
  CHECK(gate(SlurmNode({NodeState::kIdle, NodeState::kDrain}, "bad DIMM")) == "False");
  CHECK(gate(SlurmNode({NodeState::kDown})) == "False");
  CHECK(gate(SlurmNode({NodeState::kDown, NodeState::kAllocated})) == "True");
  // Not responding but not drained: Slurm may give it jobs when it answers again.
  CHECK(gate(SlurmNode({NodeState::kIdle, NodeState::kNotResponding})) == "True");
}

TEST_CASE("Node conditions tell a Tidepool drain from one made in Slurm") {
  const absl::Time now = absl::FromUnixSeconds(1'800'000'000);
  const NodeObservation node = SchedulableNode();
  Node ours = SlurmNode({NodeState::kIdle, NodeState::kDrain}, "k8s: cordon: x");
  std::optional<std::string> body = NodeConditionsApply(node, ours, now);
  REQUIRE(body.has_value());
  CHECK(absl::StrContains(*body, R"("type":"SlurmDrain","status":"True","reason":"Drained")"));
  CHECK(absl::StrContains(*body, R"("type":"SlurmCordon","status":"False")"));
  Node theirs = SlurmNode({NodeState::kIdle, NodeState::kDrain}, "bad DIMM");
  theirs.reason_set_by_user = "alice";
  body = NodeConditionsApply(node, theirs, now);
  REQUIRE(body.has_value());
  CHECK(absl::StrContains(
      *body,
      R"j("type":"SlurmCordon","status":"True","reason":"DrainedInSlurm","message":"bad DIMM (set by alice)")j"));
  CHECK(absl::StrContains(*body, R"("lastTransitionTime":"2027-01-15T08:00:00Z")"));
}

TEST_CASE("an unchanged condition status keeps its transition time") {
  const absl::Time later = absl::FromUnixSeconds(1'900'000'000);
  NodeObservation node = SchedulableNode();
  node.conditions["SlurmDrain"] = {
      .status = "False", .reason = "Other", .last_transition_time = "2020-01-01T00:00:00Z"};
  std::optional<std::string> body = NodeConditionsApply(node, SlurmNode({NodeState::kIdle}), later);
  REQUIRE(body.has_value());
  CHECK(absl::StrContains(
      *body,
      R"("type":"SlurmDrain","status":"False","reason":"NotDrained","message":"","lastTransitionTime":"2020-01-01T00:00:00Z")"));
}

TEST_CASE("the Node's drain annotation is set while drained and removed after") {
  NodeObservation node = SchedulableNode();
  std::optional<std::string> patch =
      NodeAnnotationPatch(node, SlurmNode({NodeState::kIdle, NodeState::kDrain}, "k8s: x"));
  REQUIRE(patch.has_value());
  CHECK(*patch == R"({"metadata":{"annotations":{"tidepool.dev/drain":"k8s: x"}}})");
  node.annotations["tidepool.dev/drain"] = "k8s: x";
  patch = NodeAnnotationPatch(node, SlurmNode({NodeState::kIdle}));
  REQUIRE(patch.has_value());
  CHECK(*patch == R"({"metadata":{"annotations":{"tidepool.dev/drain":null}}})");
  CHECK_FALSE(NodeAnnotationPatch(SchedulableNode(), SlurmNode({NodeState::kIdle})).has_value());
}

TEST_CASE("pods and Nodes are read from their JSON") {
  absl::StatusOr<PodObservation> pod = ObservePod(R"({
    "metadata": {"name": "p", "namespace": "hpc", "deletionTimestamp": "2026-12-02T10:00:00Z",
                 "labels": {"tidepool.dev/slurm-node": "gpu-07"}, "annotations": {"a": "b"}},
    "spec": {"nodeName": "k-7"},
    "status": {"conditions": [{"type": "Ready", "status": "True"},
                              {"type": "tidepool.dev/SlurmNodeReady", "status": "False",
                               "reason": "Drained"}]}})");
  REQUIRE(pod.ok());
  CHECK(pod->slurm_node == "gpu-07");
  CHECK(pod->node_name == "k-7");
  CHECK(pod->ready);
  CHECK(pod->terminating);
  CHECK(pod->conditions.at(api::kSlurmNodeReadyCondition).reason == "Drained");
  absl::StatusOr<NodeObservation> node = ObserveNode(R"({
    "metadata": {"name": "k-7", "annotations": {"tidepool.dev/cordon-reason": "disk"}},
    "spec": {"unschedulable": true},
    "status": {"conditions": [{"type": "Ready", "status": "True"}]}})");
  REQUIRE(node.ok());
  CHECK(node->unschedulable);
  CHECK(node->cordon_reason == "disk");
  CHECK(node->conditions.at("Ready").status == "True");
  CHECK_FALSE(ObservePod("[1]").ok());
  absl::StatusOr<PodObservation> bare = ObservePod(R"({"metadata": {"name": "gpu-01"}})");
  REQUIRE(bare.ok());
  CHECK(bare->slurm_node == "gpu-01");
  CHECK_FALSE(bare->ready);
}

TEST_CASE("Slurm's state shows in Kubernetes unless every object written to was gone") {
  using enum ConditionWrite;
  CHECK(ShownInKubernetes(kWritten, std::nullopt));
  CHECK(ShownInKubernetes(kNotNeeded, std::nullopt));
  CHECK_FALSE(ShownInKubernetes(kGone, std::nullopt));
  CHECK(ShownInKubernetes(kGone, kWritten));
  CHECK(ShownInKubernetes(kGone, kNotNeeded));
  CHECK(ShownInKubernetes(kWritten, kGone));
  CHECK_FALSE(ShownInKubernetes(kGone, kGone));
}

}  // namespace
}  // namespace tidepool::syncer

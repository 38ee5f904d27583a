#include "urgency.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::syncer {
namespace {

using slurm::rest::NodeState;

NodeObservation Node() {
  NodeObservation node;
  node.name = "gpu-01";
  node.conditions["Ready"] = {.type = "Ready", .status = "True"};
  node.conditions["GpuFailed"] = {.type = "GpuFailed", .status = "False"};
  return node;
}

TEST_CASE("a Node's drain inputs: cordon, its reason, a draining condition's status") {
  const std::vector<std::string> draining = {"GpuFailed"};
  const NodeObservation before = Node();
  NodeObservation after = before;
  after.annotations["unrelated"] = "x";
  after.conditions["Ready"].message = "kubelet is posting ready status";
  CHECK_FALSE(NodeDrainInputsDiffer(before, after, draining));
  after.conditions["Ready"].status = "False";  // not a draining type here
  CHECK_FALSE(NodeDrainInputsDiffer(before, after, draining));

  after = before;
  after.unschedulable = true;
  CHECK(NodeDrainInputsDiffer(before, after, draining));
  after = before;
  after.cordon_reason = "disk swap";
  CHECK(NodeDrainInputsDiffer(before, after, draining));
  after = before;
  after.conditions["GpuFailed"].status = "True";
  CHECK(NodeDrainInputsDiffer(before, after, draining));
  after = before;
  after.conditions.erase("GpuFailed");
  CHECK(NodeDrainInputsDiffer(before, after, draining));
}

TEST_CASE("a pod's drain inputs: terminating, ready") {
  PodObservation before{.ns = "hpc", .name = "gpu-01", .ready = true};
  PodObservation after = before;
  after.annotations["unrelated"] = "x";
  CHECK_FALSE(PodDrainInputsDiffer(before, after));
  after.ready = false;
  CHECK(PodDrainInputsDiffer(before, after));
  after = before;
  after.terminating = true;
  CHECK(PodDrainInputsDiffer(before, after));
}

TEST_CASE("a Slurm node's outside drain mark: the reason of a drain Kubernetes did not cause") {
  slurm::rest::Node node;
  node.name = "gpu-01";
  node.state = slurm::rest::NodeStateSet({NodeState::kIdle});
  node.reason = "stale";
  CHECK(OutsideDrainMark(node).empty());
  node.state = slurm::rest::NodeStateSet({NodeState::kAllocated});
  CHECK(OutsideDrainMark(node).empty());  // routine: jobs come and go
  node.state = slurm::rest::NodeStateSet({NodeState::kIdle, NodeState::kDrain});
  node.reason = "bad dimm";
  const std::string drained = OutsideDrainMark(node);
  CHECK(drained == "drain: bad dimm");
  node.state = slurm::rest::NodeStateSet({NodeState::kAllocated, NodeState::kDrain});
  CHECK(OutsideDrainMark(node) == drained);  // draining, the same drain
  node.reason = "bad dimm, again";
  CHECK(OutsideDrainMark(node) != drained);
  // Tidepool's own drains reach Kubernetes as routine: it caused them.
  for (const char* ours : {"k8s: cordon: disk swap", "k8s: scale-in", "k8s: pod not ready"}) {
    node.reason = ours;
    CHECK(OutsideDrainMark(node).empty());
  }
}

}  // namespace
}  // namespace tidepool::syncer

#pragma once

// What one NodeSet should look like, decided from observed state only (pods, feasible
// Nodes, Slurm as the syncer last saw it): which pods to create, which to drain and
// delete (scale-in, rolling update, Node no longer feasible), which of our own drains to
// clear. Pure: no API calls, so every rule is unit tested.

#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tidepool/v1/syncer.pb.h"

namespace tidepool::nodeset {

// A slurmd pod of the NodeSet as the cache shows it.
struct ObservedPod {
  std::string name;  // = the Slurm node name
  std::string uid;
  std::string node_name;      // spec.nodeName
  std::string template_hash;  // tidepool.dev/template-hash annotation
  bool ready = false;         // PodView::ready: the containers are ready
  bool deleting = false;      // deletionTimestamp set
};

// A Node this NodeSet may use (and no earlier NodeSet took).
struct FeasibleNode {
  std::string name;
  std::string planned_slurm_name;  // from PlanMembers: the Node label's, or lowest free
  std::string slurm_node_label;    // the tidepool.dev/slurm-node label now ("" when none)
};

// Slurm as the syncer last reported it.
struct SlurmView {
  bool reachable = false;
  std::string unreachable_reason;  // why not, for conditions and events
  std::map<std::string, tidepool::v1::SlurmNode> nodes;

  const tidepool::v1::SlurmNode* Find(const std::string& name) const {
    auto it = nodes.find(name);
    return it == nodes.end() ? nullptr : &it->second;
  }
};

enum class UpdateStrategyType { kRollingUpdate, kOnDelete };

struct PlanInput {
  std::optional<int> replicas;  // unset: every feasible Node
  UpdateStrategyType strategy = UpdateStrategyType::kRollingUpdate;
  int max_unavailable = 1;  // resolved against the desired count
  std::string name_prefix;
  std::string template_hash;
  std::vector<FeasibleNode> feasible;
  std::vector<ObservedPod> pods;
  const SlurmView* slurm = nullptr;
  // Pods one plan creates at most; the rest wait for the next sync (Plan::creates_deferred).
  int max_creates = std::numeric_limits<int>::max();
};

struct PodToCreate {
  std::string slurm_name;
  std::string node_name;
};

enum class DeletionCause { kScaleIn, kUpdate, kNotFeasible };
// The drain reason a deletion asks for.
const char* DrainReasonFor(DeletionCause cause);
const char* DeletionCauseName(DeletionCause cause);  // "scale-in", "update", "not-feasible"

// Where a protected deletion stands.
enum class DeletionStep {
  kBlocked,      // the syncer or Slurm cannot be seen: touch nothing
  kDrain,        // ask the syncer to drain the Slurm node
  kWaitForJobs,  // drain set, jobs still running
  kDelete,       // drained and idle (or unknown to Slurm): delete the pod
};

struct PodDeletion {
  std::string pod;
  std::string uid;
  DeletionCause cause = DeletionCause::kScaleIn;
  DeletionStep step = DeletionStep::kBlocked;
};

struct Undrain {
  std::string slurm_name;
  std::string if_reason;  // our own drain reason, as the node has it now
};

struct NodeLabel {
  std::string node_name;
  std::string slurm_name;
};

struct Plan {
  int desired = 0;
  std::vector<std::string> member_nodes;  // the Nodes that should run a pod
  std::vector<PodToCreate> creates;
  int creates_deferred = 0;  // pods to create beyond PlanInput::max_creates: the next sync's
  std::vector<PodDeletion> deletions;
  std::vector<Undrain> undrains;
  std::vector<NodeLabel> node_labels;  // Nodes whose slurm-node label must be set
  int outdated = 0;                    // member pods with another template hash
  int awaiting_replacement = 0;        // members whose old pod is still terminating

  bool Settled() const {
    return creates.empty() && creates_deferred == 0 && deletions.empty() && undrains.empty() &&
           outdated == 0 && awaiting_replacement == 0;
  }
};

// Scale-in victims go first in this order: pods not ready, then idle, then draining,
// then running jobs (so a running job is disturbed last).
enum class VictimRank { kNotReady = 0, kIdle = 1, kDraining = 2, kRunning = 3 };
VictimRank RankVictim(const ObservedPod& pod, const SlurmView& slurm);

// Pods ordered as scale-in victims: by rank, then the highest ordinal first (so names
// stay compact).
std::vector<const ObservedPod*> OrderVictims(std::vector<const ObservedPod*> pods,
                                             const std::string& prefix, const SlurmView& slurm);

// "25%" of `desired` rounded down (at least 1), or a count; 1 for anything else (the CRD
// already refuses other values; this guards against what it cannot check).
int ResolveMaxUnavailable(const std::string& value, int desired);

// Where a pod that must go stands, given Slurm's view of its node.
DeletionStep DeletionStepFor(const std::string& slurm_name, const SlurmView& slurm);

// Of the outdated member pods, those to replace now under RollingUpdate: every one
// already being updated (drain reason k8s: update) or not ready, then ready ones in
// victim order while fewer than max_unavailable members are unavailable.
std::vector<const ObservedPod*> SelectForUpdate(const std::vector<const ObservedPod*>& outdated,
                                                int unavailable, int max_unavailable,
                                                const std::string& prefix, const SlurmView& slurm);

Plan PlanNodeSet(const PlanInput& input);

}  // namespace tidepool::nodeset

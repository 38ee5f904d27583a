#include "plan.h"

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"
#include "tidepool/contract.h"
#include "tidepool/naming.h"

namespace tidepool::nodeset {
namespace {

bool HasOurDrain(const tidepool::v1::SlurmNode& node) {
  return node.drain() &&
         (node.reason() == api::kScaleInDrainReason || node.reason() == api::kUpdateDrainReason);
}

bool BeingUpdated(const ObservedPod& pod, const SlurmView& slurm) {
  const tidepool::v1::SlurmNode* node = slurm.Find(pod.name);
  return node != nullptr && node->drain() && node->reason() == api::kUpdateDrainReason;
}

// What the pods on the NodeSet's Nodes amount to: at most one live pod per feasible
// Node; every other live pod must leave.
struct PodsByNode {
  std::map<std::string, const ObservedPod*> live;  // by Node name
  std::set<std::string> terminating;               // feasible Nodes whose pod is going away
  std::vector<const ObservedPod*> misplaced;       // on no feasible Node, or a second pod
};

PodsByNode GroupPods(const PlanInput& input, const std::set<std::string>& feasible) {
  std::vector<const ObservedPod*> pods;
  for (const ObservedPod& pod : input.pods) pods.push_back(&pod);
  std::sort(pods.begin(), pods.end(),
            [](const ObservedPod* a, const ObservedPod* b) { return a->name < b->name; });
  PodsByNode grouped;
  for (const ObservedPod* pod : pods) {
    const bool fits = feasible.contains(pod->node_name);
    if (pod->deleting) {
      if (fits) grouped.terminating.insert(pod->node_name);
    } else if (!fits || grouped.live.contains(pod->node_name)) {
      grouped.misplaced.push_back(pod);
    } else {
      grouped.live[pod->node_name] = pod;
    }
  }
  return grouped;
}

// Names for new pods: the planned name unless a pod already has it, else the lowest
// free ordinal.
void NameCreates(const PlanInput& input, const std::vector<const FeasibleNode*>& nodes,
                 Plan& plan) {
  std::set<std::string> taken;
  std::vector<int> taken_ordinals;
  for (const ObservedPod& pod : input.pods) taken.insert(pod.name);
  for (const FeasibleNode& node : input.feasible) {
    // Names kept on other Nodes' labels stay reserved for those Nodes.
    if (api::OrdinalOf(input.name_prefix, node.slurm_node_label) > 0) {
      taken_ordinals.push_back(api::OrdinalOf(input.name_prefix, node.slurm_node_label));
    }
  }
  for (const std::string& name : taken) {
    if (int ordinal = api::OrdinalOf(input.name_prefix, name); ordinal > 0) {
      taken_ordinals.push_back(ordinal);
    }
  }
  std::vector<const FeasibleNode*> unnamed;
  for (const FeasibleNode* node : nodes) {
    const std::string& wanted = node->planned_slurm_name;
    if (api::OrdinalOf(input.name_prefix, wanted) > 0 && !taken.contains(wanted)) {
      taken.insert(wanted);
      taken_ordinals.push_back(api::OrdinalOf(input.name_prefix, wanted));
      plan.creates.push_back({wanted, node->name});
    } else {
      unnamed.push_back(node);
    }
  }
  const std::vector<int> fresh =
      api::LowestFreeOrdinals(taken_ordinals, static_cast<int>(unnamed.size()));
  for (size_t i = 0; i < unnamed.size(); ++i) {
    plan.creates.push_back({api::SlurmNodeName(input.name_prefix, fresh[i]), unnamed[i]->name});
  }
}

// A scale-out of thousands is written over several syncs: each writes the status and
// acts on deletions and drains in between, instead of one sync that runs for many minutes
// holding the NodeSet's key. Later syncs name the rest alike (pods and labels written by
// then reserve their names).
void DeferCreatesBeyond(int max_creates, Plan& plan) {
  const size_t limit = static_cast<size_t>(std::max(max_creates, 0));
  if (plan.creates.size() <= limit) return;
  plan.creates_deferred = static_cast<int>(plan.creates.size() - limit);
  plan.creates.resize(limit);
}

void AddDeletion(const ObservedPod& pod, DeletionCause cause, const SlurmView& slurm, Plan& plan) {
  plan.deletions.push_back({pod.name, pod.uid, cause, DeletionStepFor(pod.name, slurm)});
}

// Pods on member Nodes that are ready, current and carry our own drain: the drain was
// for a deletion that no longer happens, or the pod that replaced the drained one is up.
void PlanUndrains(const std::vector<const ObservedPod*>& members, const PlanInput& input,
                  Plan& plan) {
  if (!input.slurm->reachable) return;
  for (const ObservedPod* pod : members) {
    const tidepool::v1::SlurmNode* node = input.slurm->Find(pod->name);
    if (node == nullptr || !HasOurDrain(*node)) continue;
    if (pod->ready && pod->template_hash == input.template_hash) {
      plan.undrains.push_back({pod->name, node->reason()});
    }
  }
}

void PlanRollingUpdate(const std::vector<const ObservedPod*>& members, int missing,
                       const PlanInput& input, Plan& plan) {
  std::vector<const ObservedPod*> outdated;
  int unavailable = missing;
  for (const ObservedPod* pod : members) {
    if (pod->template_hash != input.template_hash) outdated.push_back(pod);
    if (!pod->ready || BeingUpdated(*pod, *input.slurm)) ++unavailable;
  }
  plan.outdated = static_cast<int>(outdated.size());
  if (input.strategy != UpdateStrategyType::kRollingUpdate) return;
  for (const ObservedPod* pod : SelectForUpdate(outdated, unavailable, input.max_unavailable,
                                                input.name_prefix, *input.slurm)) {
    AddDeletion(*pod, DeletionCause::kUpdate, *input.slurm, plan);
  }
}

void AddNodeLabel(const std::string& node_name, const std::string& slurm_name,
                  const PlanInput& input, Plan& plan) {
  for (const FeasibleNode& node : input.feasible) {
    if (node.name == node_name && node.slurm_node_label != slurm_name) {
      plan.node_labels.push_back({node_name, slurm_name});
    }
  }
}

}  // namespace

const char* DrainReasonFor(DeletionCause cause) {
  return cause == DeletionCause::kUpdate ? api::kUpdateDrainReason : api::kScaleInDrainReason;
}

const char* DeletionCauseName(DeletionCause cause) {
  switch (cause) {
    case DeletionCause::kScaleIn:
      return "scale-in";
    case DeletionCause::kUpdate:
      return "update";
    case DeletionCause::kNotFeasible:
      return "not-feasible";
  }
  return "unknown";
}

VictimRank RankVictim(const ObservedPod& pod, const SlurmView& slurm) {
  if (!pod.ready) return VictimRank::kNotReady;
  const tidepool::v1::SlurmNode* node = slurm.Find(pod.name);
  if (node == nullptr) return VictimRank::kIdle;  // not in Slurm: nothing can run there
  if (node->down()) return VictimRank::kNotReady;
  if (node->drain()) return node->drained() ? VictimRank::kIdle : VictimRank::kDraining;
  return node->idle() ? VictimRank::kIdle : VictimRank::kRunning;
}

std::vector<const ObservedPod*> OrderVictims(std::vector<const ObservedPod*> pods,
                                             const std::string& prefix, const SlurmView& slurm) {
  std::stable_sort(pods.begin(), pods.end(), [&](const ObservedPod* a, const ObservedPod* b) {
    const VictimRank rank_a = RankVictim(*a, slurm);
    const VictimRank rank_b = RankVictim(*b, slurm);
    if (rank_a != rank_b) return rank_a < rank_b;
    return api::OrdinalOf(prefix, a->name) > api::OrdinalOf(prefix, b->name);
  });
  return pods;
}

int ResolveMaxUnavailable(const std::string& value, int desired) {
  absl::string_view text = absl::StripAsciiWhitespace(value);
  int number = 0;
  if (absl::ConsumeSuffix(&text, "%")) {
    if (!absl::SimpleAtoi(text, &number) || number <= 0) return 1;
    return std::max(1, desired * std::min(number, 100) / 100);
  }
  if (!absl::SimpleAtoi(text, &number) || number <= 0) return 1;
  return number;
}

DeletionStep DeletionStepFor(const std::string& slurm_name, const SlurmView& slurm) {
  if (!slurm.reachable) return DeletionStep::kBlocked;
  const tidepool::v1::SlurmNode* node = slurm.Find(slurm_name);
  if (node == nullptr || node->drained()) return DeletionStep::kDelete;
  return node->drain() ? DeletionStep::kWaitForJobs : DeletionStep::kDrain;
}

std::vector<const ObservedPod*> SelectForUpdate(const std::vector<const ObservedPod*>& outdated,
                                                int unavailable, int max_unavailable,
                                                const std::string& prefix, const SlurmView& slurm) {
  std::vector<const ObservedPod*> selected;
  std::vector<const ObservedPod*> ready;
  for (const ObservedPod* pod : outdated) {
    // Already unavailable: replacing it costs no availability.
    if (!pod->ready || BeingUpdated(*pod, slurm)) {
      selected.push_back(pod);
    } else {
      ready.push_back(pod);
    }
  }
  for (const ObservedPod* pod : OrderVictims(ready, prefix, slurm)) {
    if (unavailable >= max_unavailable) break;
    selected.push_back(pod);
    ++unavailable;
  }
  return selected;
}

Plan PlanNodeSet(const PlanInput& input) {
  Plan plan;
  std::set<std::string> feasible;
  for (const FeasibleNode& node : input.feasible) feasible.insert(node.name);
  const PodsByNode grouped = GroupPods(input, feasible);
  for (const ObservedPod* pod : grouped.misplaced) {
    AddDeletion(*pod, DeletionCause::kNotFeasible, *input.slurm, plan);
  }
  const int feasible_count = static_cast<int>(input.feasible.size());
  plan.desired =
      input.replicas.has_value() ? std::clamp(*input.replicas, 0, feasible_count) : feasible_count;

  // Keep the pods least worth removing; the rest are scale-in victims.
  std::vector<const ObservedPod*> live;
  for (const auto& [node, pod] : grouped.live) live.push_back(pod);
  std::vector<const ObservedPod*> keep_order = OrderVictims(live, input.name_prefix, *input.slurm);
  std::reverse(keep_order.begin(), keep_order.end());
  std::vector<const ObservedPod*> members;
  for (const ObservedPod* pod : keep_order) {
    if (static_cast<int>(members.size()) < plan.desired) {
      members.push_back(pod);
      plan.member_nodes.push_back(pod->node_name);
      AddNodeLabel(pod->node_name, pod->name, input, plan);
    } else {
      AddDeletion(*pod, DeletionCause::kScaleIn, *input.slurm, plan);
    }
  }
  // Then Nodes whose pod is being replaced, then Nodes without a pod, in Node order.
  std::vector<const FeasibleNode*> to_create;
  for (const bool terminating : {true, false}) {
    for (const FeasibleNode& node : input.feasible) {
      if (static_cast<int>(plan.member_nodes.size()) >= plan.desired) break;
      if (grouped.live.contains(node.name) ||
          grouped.terminating.contains(node.name) != terminating) {
        continue;
      }
      plan.member_nodes.push_back(node.name);
      if (terminating) {
        ++plan.awaiting_replacement;
      } else {
        to_create.push_back(&node);
      }
    }
  }
  NameCreates(input, to_create, plan);
  const int missing = plan.awaiting_replacement + static_cast<int>(plan.creates.size());
  DeferCreatesBeyond(input.max_creates, plan);
  for (const PodToCreate& create : plan.creates) {
    AddNodeLabel(create.node_name, create.slurm_name, input, plan);
  }
  PlanRollingUpdate(members, missing, input, plan);
  PlanUndrains(members, input, plan);
  return plan;
}

}  // namespace tidepool::nodeset

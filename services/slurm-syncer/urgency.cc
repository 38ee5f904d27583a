#include "urgency.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tidepool/contract.h"

namespace tidepool::syncer {
namespace {

std::string ConditionStatus(const NodeObservation& node, const std::string& type) {
  auto it = node.conditions.find(type);
  return it == node.conditions.end() ? "" : it->second.status;
}

}  // namespace

bool NodeDrainInputsDiffer(const NodeObservation& before, const NodeObservation& after,
                           const std::vector<std::string>& drain_conditions) {
  if (before.unschedulable != after.unschedulable) return true;
  if (before.cordon_reason != after.cordon_reason) return true;
  for (const std::string& type : drain_conditions) {
    if (ConditionStatus(before, type) != ConditionStatus(after, type)) return true;
  }
  return false;
}

bool PodDrainInputsDiffer(const PodObservation& before, const PodObservation& after) {
  return before.terminating != after.terminating || before.ready != after.ready;
}

std::string OutsideDrainMark(const slurm::rest::Node& node) {
  if (!node.state.Has(slurm::rest::NodeState::kDrain)) return "";
  if (absl::StartsWith(node.reason, api::kTidepoolDrainReasonPrefix)) return "";
  return absl::StrCat("drain: ", node.reason);
}

}  // namespace tidepool::syncer

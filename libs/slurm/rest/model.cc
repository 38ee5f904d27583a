#include "slurm/rest/model.h"

#include <algorithm>
#include <array>
#include <utility>

#include "absl/strings/str_join.h"

namespace tidepool::slurm::rest {
namespace {

constexpr std::array<std::pair<NodeState, absl::string_view>, 31> kNodeStateNames = {{
    {NodeState::kUnknown, "UNKNOWN"},
    {NodeState::kDown, "DOWN"},
    {NodeState::kIdle, "IDLE"},
    {NodeState::kAllocated, "ALLOCATED"},
    {NodeState::kError, "ERROR"},
    {NodeState::kMixed, "MIXED"},
    {NodeState::kFuture, "FUTURE"},
    {NodeState::kReserved, "RESERVED"},
    {NodeState::kUndrain, "UNDRAIN"},
    {NodeState::kCloud, "CLOUD"},
    {NodeState::kResume, "RESUME"},
    {NodeState::kDrain, "DRAIN"},
    {NodeState::kCompleting, "COMPLETING"},
    {NodeState::kNotResponding, "NOT_RESPONDING"},
    {NodeState::kPoweredDown, "POWERED_DOWN"},
    {NodeState::kFail, "FAIL"},
    {NodeState::kPoweringUp, "POWERING_UP"},
    {NodeState::kMaintenance, "MAINTENANCE"},
    {NodeState::kRebootRequested, "REBOOT_REQUESTED"},
    {NodeState::kRebootCanceled, "REBOOT_CANCELED"},
    {NodeState::kPoweringDown, "POWERING_DOWN"},
    {NodeState::kDynamicFuture, "DYNAMIC_FUTURE"},
    {NodeState::kRebootIssued, "REBOOT_ISSUED"},
    {NodeState::kPlanned, "PLANNED"},
    {NodeState::kInvalidReg, "INVALID_REG"},
    {NodeState::kPowerDown, "POWER_DOWN"},
    {NodeState::kPowerUp, "POWER_UP"},
    {NodeState::kPowerDrain, "POWER_DRAIN"},
    {NodeState::kDynamicNorm, "DYNAMIC_NORM"},
    {NodeState::kBlocked, "BLOCKED"},
    {NodeState::kInvalid, "INVALID"},
}};

constexpr std::array<absl::string_view, 9> kFinalJobStates = {
    "COMPLETED", "FAILED",        "CANCELLED", "TIMEOUT", "NODE_FAIL",
    "PREEMPTED", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE"};

}  // namespace

absl::string_view NodeStateName(NodeState state) {
  for (const auto& [s, name] : kNodeStateNames) {
    if (s == state) return name;
  }
  return "?";
}

std::optional<NodeState> ParseNodeState(absl::string_view name) {
  for (const auto& [s, n] : kNodeStateNames) {
    if (n == name) return s;
  }
  return std::nullopt;
}

void NodeStateSet::AddName(absl::string_view name) {
  if (std::optional<NodeState> state = ParseNodeState(name); state.has_value()) {
    Add(*state);
  } else if (std::find(unknown_.begin(), unknown_.end(), name) == unknown_.end()) {
    unknown_.emplace_back(name);
  }
}

std::string NodeStateSet::ToString() const {
  std::vector<absl::string_view> names;
  for (const auto& [s, name] : kNodeStateNames) {
    if (Has(s)) names.push_back(name);
  }
  for (const std::string& u : unknown_) names.push_back(u);
  return absl::StrJoin(names, "+");
}

bool Job::HasState(absl::string_view s) const {
  return std::find(state.begin(), state.end(), s) != state.end();
}

bool Job::Finished() const {
  if (HasState("COMPLETING")) return false;
  return std::any_of(kFinalJobStates.begin(), kFinalJobStates.end(),
                     [&](absl::string_view s) { return HasState(s); });
}

}  // namespace tidepool::slurm::rest

#include "drain_policy.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tidepool/contract.h"

namespace tidepool::syncer {
namespace {

using slurm::rest::Node;
using slurm::rest::NodeState;
using slurm::rest::NodeUpdate;

std::string DescribeReason(const Node& node) {
  std::string text = absl::StrCat("reason \"", node.reason, "\"");
  if (!node.reason_set_by_user.empty()) absl::StrAppend(&text, " set by ", node.reason_set_by_user);
  absl::StrAppend(&text, " (state ", node.state.ToString(), ")");
  return text;
}

absl::Status NotOwned(const Node& node, absl::string_view verb) {
  return absl::FailedPreconditionError(
      absl::StrCat("node ", node.name, " has ", DescribeReason(node), "; the syncer ", verb,
                   " only reasons that start with \"", api::kTidepoolDrainReasonPrefix,
                   "\" (set force to override)"));
}

absl::StatusOr<std::optional<NodeUpdate>> PlanDrain(const Node& current,
                                                    const DrainRequest& request) {
  if (current.state.Has(NodeState::kDrain) && current.reason == request.reason) {
    return std::nullopt;
  }
  if (ReasonActive(current) && !current.reason.empty() && !IsOwnedReason(current.reason) &&
      !request.force) {
    return NotOwned(current, "replaces");
  }
  return NodeUpdate{.state = NodeUpdate::State::kDrain, .reason = request.reason};
}

absl::StatusOr<std::optional<NodeUpdate>> PlanUndrain(const Node& current,
                                                      const DrainRequest& request) {
  if (!current.state.Has(NodeState::kDrain)) return std::nullopt;
  if (!request.if_reason.empty() && current.reason != request.if_reason) {
    return absl::FailedPreconditionError(
        absl::StrCat("node ", current.name, " has ", DescribeReason(current), ", not \"",
                     request.if_reason, "\" as if_reason requires; left drained"));
  }
  if (!IsOwnedReason(current.reason) && !request.force) return NotOwned(current, "clears");
  return NodeUpdate{.state = NodeUpdate::State::kUndrain};
}

}  // namespace

bool IsOwnedReason(absl::string_view reason) {
  return absl::StartsWith(reason, api::kTidepoolDrainReasonPrefix);
}

bool ReasonActive(const Node& node) {
  return node.state.Has(NodeState::kDrain) || node.state.Has(NodeState::kDown) ||
         node.state.Has(NodeState::kFail);
}

bool Busy(const Node& node) {
  return node.state.Has(NodeState::kAllocated) || node.state.Has(NodeState::kMixed) ||
         node.state.Has(NodeState::kCompleting);
}

absl::Status ValidateDrainRequest(const DrainRequest& request) {
  if (request.node.empty())
    return absl::InvalidArgumentError("name: a Slurm node name is required");
  switch (request.action) {
    case DrainRequest::Action::kDrain:
      if (request.reason.empty()) {
        return absl::InvalidArgumentError("reason: required to drain a node");
      }
      if (!IsOwnedReason(request.reason) && !request.force) {
        return absl::InvalidArgumentError(
            absl::StrCat("reason \"", request.reason, "\" does not start with \"",
                         api::kTidepoolDrainReasonPrefix,
                         "\": the syncer drains with its own reasons (set force to use another)"));
      }
      if (!request.if_reason.empty()) {
        return absl::InvalidArgumentError("if_reason: only for UNDRAIN");
      }
      return absl::OkStatus();
    case DrainRequest::Action::kUndrain:
      if (!request.reason.empty()) {
        return absl::InvalidArgumentError("reason: UNDRAIN takes none (Slurm clears it)");
      }
      return absl::OkStatus();
    case DrainRequest::Action::kUnspecified:
      break;
  }
  return absl::InvalidArgumentError("action: DRAIN or UNDRAIN is required");
}

absl::StatusOr<std::optional<NodeUpdate>> PlanDrainUpdate(const Node& current,
                                                          const DrainRequest& request) {
  if (absl::Status valid = ValidateDrainRequest(request); !valid.ok()) return valid;
  if (request.action == DrainRequest::Action::kDrain) return PlanDrain(current, request);
  return PlanUndrain(current, request);
}

}  // namespace tidepool::syncer

#pragma once

// Who may change a Slurm node's drain: the syncer owns reasons that start with "k8s:".
// A reason set by a person or by Slurm (a drain, or a DOWN node's "Not responding") is
// never overwritten or cleared unless the caller forces it, and an undrain never
// resumes a DOWN node (UNDRAIN clears the flag and leaves the base state alone).

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "slurm/rest/model.h"
#include "tidepool/contract.h"

namespace tidepool::syncer {

// True for reasons the syncer made ("k8s: cordon: maintenance").
bool IsOwnedReason(absl::string_view reason);

// True while the node's reason means something: it is drained, down or failed. Slurm
// keeps a reason after a node is resumed or undrained (24.11 does); such a stale
// reason holds nothing back.
bool ReasonActive(const slurm::rest::Node& node);

// Jobs still hold the node: allocated, mixed or completing. A drained node that is not
// busy is drained (DRAINED); one that is, is draining.
bool Busy(const slurm::rest::Node& node);

struct DrainRequest {
  enum class Action { kUnspecified, kDrain, kUndrain };
  std::string node;
  Action action = Action::kUnspecified;
  std::string reason;     // kDrain: required; "k8s:…" unless force
  bool force = false;     // overwrite or clear a reason the syncer does not own
  std::string if_reason;  // kUndrain: only when the current reason is exactly this
};

// Checks the request alone: InvalidArgument naming the field.
absl::Status ValidateDrainRequest(const DrainRequest& request);

// What to send to Slurm to bring `current` where the request asks: nullopt when it is
// already there, FailedPrecondition when the policy forbids it (the message names the
// node, its reason and who set it, and says how to override).
absl::StatusOr<std::optional<slurm::rest::NodeUpdate>> PlanDrainUpdate(
    const slurm::rest::Node& current, const DrainRequest& request);

}  // namespace tidepool::syncer

#pragma once

// NodeSet status from observed state only (the pods, feasible Nodes and Slurm view the
// sync saw, and what it planned from them), and its JSON for the status subresource.
// Pure.

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "plan.h"
#include "tidepool/v1/node_set.pb.h"

namespace tidepool::nodeset {

struct StatusInputs {
  std::string node_set_name;
  int64_t generation = 0;
  const PlanInput* observed = nullptr;
  const Plan* plan = nullptr;
  std::string pod_error;  // why pods cannot be built ("" when they can)
  // The Progressing reason with pod_error ("" = PodTemplateInvalid).
  std::string pod_error_reason;
  const tidepool::v1::NodeSetStatus* previous = nullptr;  // for lastTransitionTime
  absl::Time now;
};

tidepool::v1::NodeSetStatus ComputeStatus(const StatusInputs& inputs);

// status of a NodeSet's JSON (empty when it has none).
absl::StatusOr<tidepool::v1::NodeSetStatus> ParseStatus(absl::string_view node_set_json);

// {"status": {...}} with every field written (zeros included, so a merge patch never
// leaves a stale count behind) and integers as JSON numbers.
std::string StatusPatch(const tidepool::v1::NodeSetStatus& status);

bool SameStatus(const tidepool::v1::NodeSetStatus& a, const tidepool::v1::NodeSetStatus& b);

}  // namespace tidepool::nodeset

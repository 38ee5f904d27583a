#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "slurm/conf/model.h"
#include "tidepool/gres.h"
#include "tidepool/v1/node_set.pb.h"
#include "tidepool/v1/renderer.pb.h"

namespace tidepool::renderer {

struct DerivedNode {
  slurm::NodeConfig config;
  std::optional<api::GresSpec> gres;
};

// What DeriveNode needs from a NodeSet, prepared once per NodeSet rather than per node.
struct NodeSetRules {
  const tidepool::v1::NodeSet* node_set = nullptr;
  std::vector<std::pair<std::string, std::string>> feature_labels;  // label -> prefix, sorted
  std::optional<api::GresSpec> explicit_gres;
};

absl::StatusOr<NodeSetRules> PrepareNodeSetRules(const tidepool::v1::NodeSet& node_set);

// The Slurm attributes of one member: CPUs and memory from the NodeSet or the Node's
// allocatable, GRES explicit or from the Node's GPUs, static and label-derived features.
// Appends a warning for each feature label the Node lacks.
absl::StatusOr<DerivedNode> DeriveNode(const NodeSetRules& rules,
                                       const tidepool::v1::MemberNode& member,
                                       std::vector<std::string>& warnings);

// A label value made usable as a Slurm feature or switch name: characters outside
// [A-Za-z0-9_.-] become '_'.
std::string SlurmSafeName(absl::string_view text);

}  // namespace tidepool::renderer

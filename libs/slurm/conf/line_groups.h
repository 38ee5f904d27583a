#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tidepool::slurm {

// Collects node names under the attribute text of their line, so that nodes with the
// same attributes end up on one line. Groups keep first-seen order. Names are kept as
// views: they must outlive the LineGroups.
class LineGroups {
 public:
  // The group of `attributes`, created (last in order) if new. Callers that know which
  // nodes share attributes format each distinct text once rather than once per node.
  size_t GroupOf(std::string attributes);
  void AddToGroup(size_t group, absl::string_view node) { groups_[group].second.push_back(node); }

  // (compressed hostlist, attributes) per group, in first-seen order; an error when a
  // node name cannot be part of a hostlist.
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> Compressed() const;

 private:
  absl::flat_hash_map<std::string, size_t> index_;
  std::vector<std::pair<std::string, std::vector<absl::string_view>>> groups_;
};

}  // namespace tidepool::slurm

#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"

namespace tidepool::slurm {

// Collects node names under the attribute text of their line, so that nodes with the
// same attributes end up on one line. Groups keep first-seen order.
class LineGroups {
 public:
  void Add(const std::string& node, std::string attributes);

  // (compressed hostlist, attributes) per group, in first-seen order; an error when a
  // node name cannot be part of a hostlist.
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> Compressed() const;

 private:
  absl::flat_hash_map<std::string, size_t> index_;
  std::vector<std::pair<std::string, std::vector<std::string>>> groups_;
};

}  // namespace tidepool::slurm

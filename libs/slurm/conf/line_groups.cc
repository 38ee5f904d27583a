#include "slurm/conf/line_groups.h"

#include "slurm/hostlist/hostlist.h"

namespace tidepool::slurm {

size_t LineGroups::GroupOf(std::string attributes) {
  auto [it, inserted] = index_.try_emplace(attributes, groups_.size());
  if (inserted) groups_.emplace_back(std::move(attributes), std::vector<absl::string_view>());
  return it->second;
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> LineGroups::Compressed() const {
  std::vector<std::pair<std::string, std::string>> result;
  result.reserve(groups_.size());
  for (const auto& [attributes, nodes] : groups_) {
    HostlistBuilder hostlist;
    hostlist.Reserve(nodes.size());
    for (absl::string_view node : nodes) {
      absl::Status added = hostlist.AddHost(node);
      if (!added.ok()) return added;
    }
    result.emplace_back(hostlist.Build(), attributes);
  }
  return result;
}

}  // namespace tidepool::slurm

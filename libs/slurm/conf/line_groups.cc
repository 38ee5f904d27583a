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
    absl::StatusOr<std::string> hostlist = CompressHostNames(absl::MakeConstSpan(nodes));
    if (!hostlist.ok()) return hostlist.status();
    result.emplace_back(*std::move(hostlist), attributes);
  }
  return result;
}

}  // namespace tidepool::slurm

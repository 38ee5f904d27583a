#include "topology.h"

#include <map>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "node_attributes.h"
#include "slurm/hostlist/hostlist.h"

namespace tidepool::renderer {
namespace {

constexpr char kUnlabeled[] = "unlabeled";

std::vector<std::string> TreeLabels(const tidepool::v1::TopologySpec& spec) {
  if (spec.tree_labels().empty()) return DefaultTreeLabels();
  return {spec.tree_labels().begin(), spec.tree_labels().end()};
}

void WarnMissing(std::vector<std::string>& warnings, const std::vector<std::string>& nodes,
                 absl::string_view label) {
  if (nodes.empty()) return;
  const std::string hostlist = slurm::CompressHostNames(nodes).value_or(absl::StrJoin(nodes, ","));
  warnings.push_back(
      absl::StrCat("nodes ", hostlist, " lack label ", label, " needed by the topology"));
}

using LabelPath = std::vector<absl::string_view>;

// Members grouped by their path of label values (views into the request), in first-seen
// order; members lacking a level's label are reported and collected apart.
struct PathGroups {
  std::vector<std::pair<LabelPath, std::vector<std::string>>> leaves;
  std::vector<std::string> unlabeled;
};

PathGroups GroupByPath(const std::vector<std::string>& levels,
                       const std::vector<const tidepool::v1::MemberNode*>& members,
                       std::vector<std::string>& warnings) {
  PathGroups groups;
  absl::flat_hash_map<LabelPath, size_t> leaf_index;
  std::map<std::string, std::vector<std::string>> missing_by_label;
  LabelPath path;
  for (const tidepool::v1::MemberNode* member : members) {
    const auto& labels = member->node().metadata().labels();
    path.clear();
    for (const std::string& level : levels) {
      auto it = labels.find(level);
      if (it == labels.end()) {
        missing_by_label[level].push_back(member->slurm_node_name());
        break;
      }
      path.push_back(it->second);
    }
    if (path.size() < levels.size()) {
      groups.unlabeled.push_back(member->slurm_node_name());
      continue;
    }
    auto [it, inserted] = leaf_index.try_emplace(path, groups.leaves.size());
    if (inserted) groups.leaves.emplace_back(path, std::vector<std::string>());
    groups.leaves[it->second].second.push_back(member->slurm_node_name());
  }
  for (const auto& [label, nodes] : missing_by_label) WarnMissing(warnings, nodes, label);
  return groups;
}

// Switch names join the label values of a path so equal values under different parents
// stay distinct switches. Leaves come first, then each level up, as Slurm reads switches
// defined before use; members without the labels hang off a switch named "unlabeled".
slurm::TopologyConf TreeTopology(const std::vector<std::string>& levels,
                                 const std::vector<const tidepool::v1::MemberNode*>& members,
                                 std::vector<std::string>& warnings) {
  PathGroups groups = GroupByPath(levels, members, warnings);
  std::map<std::string, std::vector<std::string>> leaf_nodes;
  std::vector<std::map<std::string, std::set<std::string>>> children(levels.size());
  for (auto& [values, nodes] : groups.leaves) {
    std::vector<std::string> names;
    for (absl::string_view value : values) {
      names.push_back(names.empty() ? SlurmSafeName(value)
                                    : absl::StrCat(names.back(), "-", SlurmSafeName(value)));
    }
    for (size_t level = 0; level + 1 < names.size(); ++level) {
      children[level][names[level]].insert(names[level + 1]);
    }
    auto& leaf = leaf_nodes[names.back()];
    leaf.insert(leaf.end(), std::make_move_iterator(nodes.begin()),
                std::make_move_iterator(nodes.end()));
  }
  slurm::TopologyConf conf;
  for (auto& [name, nodes] : leaf_nodes)
    conf.switches.push_back({.name = name, .nodes = std::move(nodes)});
  for (size_t level = levels.size() - 1; level-- > 0;) {
    for (const auto& [name, below] : children[level]) {
      conf.switches.push_back({.name = name, .switches = {below.begin(), below.end()}});
    }
  }
  if (!groups.unlabeled.empty()) {
    conf.switches.push_back({.name = kUnlabeled, .nodes = std::move(groups.unlabeled)});
  }
  return conf;
}

absl::Status ValidateBlockSizes(const std::vector<int>& sizes) {
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "spec.topology.blockSizes[", i, "]: ", sizes[i], " is not a positive node count"));
    }
    if (i == 0) continue;
    const int ratio = sizes[i] / sizes[0];
    const bool power_of_two_multiple = sizes[i] % sizes[0] == 0 && ratio > 1 &&
                                       (ratio & (ratio - 1)) == 0 && sizes[i] > sizes[i - 1];
    if (!power_of_two_multiple) {
      return absl::InvalidArgumentError(absl::StrCat(
          "spec.topology.blockSizes: ", absl::StrJoin(sizes, ","),
          " is not increasing by power-of-two multiples of the first size (", sizes[i], ")"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<slurm::TopologyConf> BlockTopology(
    const tidepool::v1::TopologySpec& spec,
    const std::vector<const tidepool::v1::MemberNode*>& members,
    std::vector<std::string>& warnings) {
  slurm::TopologyConf conf;
  conf.block_sizes.assign(spec.block_sizes().begin(), spec.block_sizes().end());
  absl::Status sizes = ValidateBlockSizes(conf.block_sizes);
  if (!sizes.ok()) return sizes;
  const std::string label = spec.block_label().empty() ? DefaultBlockLabel() : spec.block_label();
  std::map<std::string, std::vector<std::string>> blocks;
  std::vector<std::string> missing;
  for (const tidepool::v1::MemberNode* member : members) {
    const auto& labels = member->node().metadata().labels();
    auto it = labels.find(label);
    if (it == labels.end()) {
      missing.push_back(member->slurm_node_name());
      continue;
    }
    blocks[SlurmSafeName(it->second)].push_back(member->slurm_node_name());
  }
  WarnMissing(warnings, missing, label);
  for (auto& [name, nodes] : blocks)
    conf.blocks.push_back({.name = name, .nodes = std::move(nodes)});
  return conf;
}

}  // namespace

std::vector<std::string> DefaultTreeLabels() {
  return {"ib.coreweave.cloud/fabric", "ib.coreweave.cloud/superpod",
          "ib.coreweave.cloud/leafgroup"};
}

std::string DefaultBlockLabel() { return "ds.coreweave.com/nvlink.domain"; }

absl::StatusOr<std::string> TopologyPluginName(const tidepool::v1::TopologySpec& spec) {
  if (spec.plugin().empty() || spec.plugin() == "none") return std::string();
  if (spec.plugin() == "tree") return std::string("topology/tree");
  if (spec.plugin() == "block") return std::string("topology/block");
  return absl::InvalidArgumentError(absl::StrCat("spec.topology.plugin: \"", spec.plugin(),
                                                 "\" is not one of none, tree, block"));
}

absl::StatusOr<slurm::TopologyConf> DeriveTopology(
    const tidepool::v1::TopologySpec& spec,
    const std::vector<const tidepool::v1::MemberNode*>& members,
    std::vector<std::string>& warnings) {
  absl::StatusOr<std::string> plugin = TopologyPluginName(spec);
  if (!plugin.ok()) return plugin.status();
  if (*plugin == "topology/tree") return TreeTopology(TreeLabels(spec), members, warnings);
  if (*plugin == "topology/block") return BlockTopology(spec, members, warnings);
  return slurm::TopologyConf{};
}

}  // namespace tidepool::renderer

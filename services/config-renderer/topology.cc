#include "topology.h"

#include <cstdint>
#include <map>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/one_of.h"
#include "node_attributes.h"
#include "slurm/hostlist/hostlist.h"
#include "tidepool/render_labels.h"

namespace tidepool::renderer {
namespace {

constexpr char kUnlabeled[] = "unlabeled";

void WarnMissing(std::vector<std::string>& warnings, const std::vector<std::string>& nodes,
                 absl::string_view label) {
  if (nodes.empty()) return;
  const std::string hostlist = slurm::CompressHostNames(nodes).value_or(absl::StrJoin(nodes, ","));
  warnings.push_back(
      absl::StrCat("nodes ", hostlist, " lack label ", label, " needed by the topology"));
}

using LabelPath = std::vector<absl::string_view>;

// Where TopologyCollector::Add() put a member: the label path (tree) or block it belongs
// to, or the level of the first label it lacks. Kept by the member's position in rendering
// order, so members are listed in that order however they were added.
struct Placement {
  const tidepool::v1::MemberNode* member = nullptr;  // nullptr: never added
  uint32_t group = 0;                                // index of the path or block when labeled
  int32_t missing_level = -1;                        // -1: labeled
};

// Distinct label paths (views into the request) in the order they were first added.
struct PathIndex {
  absl::flat_hash_map<LabelPath, uint32_t> ids;
  std::vector<LabelPath> paths;
  LabelPath scratch;  // reused, so placing a member allocates nothing

  Placement Place(const std::vector<std::string>& levels, const tidepool::v1::MemberNode& member) {
    const auto& labels = member.node().metadata().labels();
    scratch.clear();
    for (size_t level = 0; level < levels.size(); ++level) {
      auto it = labels.find(levels[level]);
      if (it == labels.end()) {
        return {.member = &member, .missing_level = static_cast<int32_t>(level)};
      }
      scratch.push_back(it->second);
    }
    auto [it, inserted] = ids.try_emplace(scratch, static_cast<uint32_t>(paths.size()));
    if (inserted) paths.push_back(scratch);
    return {.member = &member, .group = it->second};
  }
};

// Members grouped by their path of label values, in first-seen (rendering) order; members
// lacking a level's label are collected apart, by the first label missing.
struct PathGroups {
  std::vector<std::pair<LabelPath, std::vector<std::string>>> leaves;
  std::vector<std::string> unlabeled;
  std::map<std::string, std::vector<std::string>> missing_by_label;
};

PathGroups GroupByPath(const std::vector<std::string>& levels, const PathIndex& index,
                       const std::vector<Placement>& placements) {
  PathGroups groups;
  constexpr size_t kNoLeaf = SIZE_MAX;
  std::vector<size_t> leaf_of_path(index.paths.size(), kNoLeaf);
  for (const Placement& placement : placements) {
    if (placement.member == nullptr) continue;
    const std::string& name = placement.member->slurm_node_name();
    if (placement.missing_level >= 0) {
      groups.missing_by_label[levels[placement.missing_level]].push_back(name);
      groups.unlabeled.push_back(name);
      continue;
    }
    size_t& leaf = leaf_of_path[placement.group];
    if (leaf == kNoLeaf) {
      leaf = groups.leaves.size();
      groups.leaves.emplace_back(index.paths[placement.group], std::vector<std::string>());
    }
    groups.leaves[leaf].second.push_back(name);
  }
  return groups;
}

// Switch names join the label values of a path so equal values under different parents
// stay distinct switches. Leaves come first, then each level up, as Slurm reads switches
// defined before use; members without the labels hang off a switch named "unlabeled".
slurm::TopologyConf TreeTopology(const std::vector<std::string>& levels, const PathIndex& index,
                                 const std::vector<Placement>& placements,
                                 std::vector<std::string>& warnings) {
  PathGroups groups = GroupByPath(levels, index, placements);
  for (const auto& [label, nodes] : groups.missing_by_label) WarnMissing(warnings, nodes, label);
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
  for (auto& [name, nodes] : leaf_nodes) {
    conf.switches.push_back({.name = name, .nodes = std::move(nodes)});
  }
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

// Distinct block names (label values made Slurm-safe) in the order they were first added.
struct BlockIndex {
  absl::flat_hash_map<std::string, uint32_t> ids;
  std::vector<std::string> names;

  Placement Place(const std::string& label, const tidepool::v1::MemberNode& member) {
    const auto& labels = member.node().metadata().labels();
    auto it = labels.find(label);
    if (it == labels.end()) return {.member = &member, .missing_level = 0};
    std::string name = SlurmSafeName(it->second);
    auto [id, inserted] = ids.try_emplace(name, static_cast<uint32_t>(names.size()));
    if (inserted) names.push_back(std::move(name));
    return {.member = &member, .group = id->second};
  }
};

absl::StatusOr<slurm::TopologyConf> BlockTopology(const tidepool::v1::TopologySpec& spec,
                                                  const std::string& label, const BlockIndex& index,
                                                  const std::vector<Placement>& placements,
                                                  std::vector<std::string>& warnings) {
  slurm::TopologyConf conf;
  conf.block_sizes.assign(spec.block_sizes().begin(), spec.block_sizes().end());
  absl::Status sizes = ValidateBlockSizes(conf.block_sizes);
  if (!sizes.ok()) return sizes;
  std::map<std::string, std::vector<std::string>> blocks;
  std::vector<std::string> missing;
  for (const Placement& placement : placements) {
    if (placement.member == nullptr) continue;
    const std::string& name = placement.member->slurm_node_name();
    if (placement.missing_level >= 0) {
      missing.push_back(name);
    } else {
      blocks[index.names[placement.group]].push_back(name);
    }
  }
  WarnMissing(warnings, missing, label);
  for (auto& [name, nodes] : blocks) {
    conf.blocks.push_back({.name = name, .nodes = std::move(nodes)});
  }
  return conf;
}

}  // namespace

absl::StatusOr<std::string> TopologyPluginName(const tidepool::v1::TopologySpec& spec) {
  if (spec.plugin().empty()) return std::string();
  return common::ParseOneOf<std::string>(
      "spec.topology.plugin: ", spec.plugin(),
      {{"none", ""}, {"tree", "topology/tree"}, {"block", "topology/block"}});
}

struct TopologyCollector::Collected {
  std::vector<std::string> tree_levels;
  PathIndex paths;
  std::string block_label;
  BlockIndex blocks;
  std::vector<Placement> placements;  // by position in rendering order
};

TopologyCollector::TopologyCollector(const tidepool::v1::TopologySpec& spec, size_t members)
    : spec_(spec),
      plugin_(TopologyPluginName(spec).value_or("")),
      collected_(std::make_unique<Collected>()) {
  if (plugin_ == "topology/tree") collected_->tree_levels = api::TopologyTreeLabels(spec);
  if (plugin_ == "topology/block") collected_->block_label = api::TopologyBlockLabel(spec);
  if (!plugin_.empty()) collected_->placements.resize(members);
}

TopologyCollector::~TopologyCollector() = default;

void TopologyCollector::Add(const tidepool::v1::MemberNode& member, size_t position) {
  Collected& collected = *collected_;
  if (plugin_ == "topology/tree") {
    collected.placements.at(position) = collected.paths.Place(collected.tree_levels, member);
  } else if (plugin_ == "topology/block") {
    collected.placements.at(position) = collected.blocks.Place(collected.block_label, member);
  }
}

absl::StatusOr<slurm::TopologyConf> TopologyCollector::Finish(
    std::vector<std::string>& warnings) const {
  absl::StatusOr<std::string> plugin = TopologyPluginName(spec_);
  if (!plugin.ok()) return plugin.status();
  const Collected& collected = *collected_;
  if (*plugin == "topology/tree") {
    return TreeTopology(collected.tree_levels, collected.paths, collected.placements, warnings);
  }
  if (*plugin == "topology/block") {
    return BlockTopology(spec_, collected.block_label, collected.blocks, collected.placements,
                         warnings);
  }
  return slurm::TopologyConf{};
}

absl::StatusOr<slurm::TopologyConf> DeriveTopology(
    const tidepool::v1::TopologySpec& spec,
    const std::vector<const tidepool::v1::MemberNode*>& members,
    std::vector<std::string>& warnings) {
  TopologyCollector collector(spec, members.size());
  for (size_t position = 0; position < members.size(); ++position) {
    collector.Add(*members[position], position);
  }
  return collector.Finish(warnings);
}

}  // namespace tidepool::renderer

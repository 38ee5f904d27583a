#include "topology.h"

#include <map>

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
  const std::string hostlist =
      slurm::CompressHostNames(nodes).value_or(absl::StrJoin(nodes, ","));
  warnings.push_back(absl::StrCat("nodes ", hostlist, " lack label ", label,
                                  " needed by the topology"));
}

// Switch names join the label values of a path so equal values under different parents
// stay distinct switches.
slurm::TopologyConf TreeTopology(const std::vector<std::string>& levels,
                                 const std::vector<const tidepool::v1::MemberNode*>& members,
                                 std::vector<std::string>& warnings) {
  std::vector<std::map<std::string, std::vector<std::string>>> children(levels.size());
  std::map<std::string, std::vector<std::string>> missing_by_label;
  std::vector<std::string> unlabeled;
  for (const tidepool::v1::MemberNode* member : members) {
    const auto& labels = member->node().metadata().labels();
    std::string path;
    std::string parent;
    bool complete = true;
    for (size_t level = 0; level < levels.size() && complete; ++level) {
      auto it = labels.find(levels[level]);
      if (it == labels.end()) {
        missing_by_label[levels[level]].push_back(member->slurm_node_name());
        complete = false;
        break;
      }
      path = path.empty() ? SlurmSafeName(it->second)
                          : absl::StrCat(path, "-", SlurmSafeName(it->second));
      if (level > 0) {
        auto& siblings = children[level - 1][parent];
        if (siblings.empty() || siblings.back() != path) siblings.push_back(path);
      }
      parent = path;
    }
    if (complete) {
      children.back()[path].push_back(member->slurm_node_name());
    } else {
      unlabeled.push_back(member->slurm_node_name());
    }
  }
  for (const auto& [label, nodes] : missing_by_label) WarnMissing(warnings, nodes, label);

  slurm::TopologyConf conf;
  // Leaves first, then each level up, as Slurm reads switches defined before use.
  for (size_t level = levels.size(); level-- > 0;) {
    for (auto& [name, below] : children[level]) {
      slurm::TreeSwitch tree_switch{.name = name};
      if (level + 1 == levels.size()) {
        tree_switch.nodes = below;
      } else {
        std::sort(below.begin(), below.end());
        below.erase(std::unique(below.begin(), below.end()), below.end());
        tree_switch.switches = below;
      }
      conf.switches.push_back(std::move(tree_switch));
    }
  }
  if (!unlabeled.empty()) conf.switches.push_back({.name = kUnlabeled, .nodes = unlabeled});
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
    const bool power_of_two_multiple =
        sizes[i] % sizes[0] == 0 && ratio > 1 && (ratio & (ratio - 1)) == 0 && sizes[i] > sizes[i - 1];
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
  for (auto& [name, nodes] : blocks) conf.blocks.push_back({.name = name, .nodes = std::move(nodes)});
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

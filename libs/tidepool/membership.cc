#include "tidepool/membership.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "tidepool/feasibility.h"
#include "tidepool/naming.h"

namespace tidepool::api {
namespace {

using tidepool::v1::NodeInfo;
using tidepool::v1::NodeSet;

// Names for the chosen Nodes of one NodeSet: kept from the Node label, else lowest free.
void NameMembers(const NodeSet& node_set, const std::vector<const NodeInfo*>& chosen,
                 std::vector<PlannedMember>& out) {
  const std::string prefix = NamePrefix(node_set);
  std::vector<int> taken;
  std::vector<const NodeInfo*> unnamed;
  std::map<int, const NodeInfo*> kept;
  for (const NodeInfo* node : chosen) {
    auto label = node->metadata().labels().find(kSlurmNodeLabel);
    const int ordinal =
        label == node->metadata().labels().end() ? -1 : OrdinalOf(prefix, label->second);
    if (ordinal > 0 && !kept.contains(ordinal)) {
      kept[ordinal] = node;
      taken.push_back(ordinal);
    } else {
      unnamed.push_back(node);
    }
  }
  const std::vector<int> fresh = LowestFreeOrdinals(taken, static_cast<int>(unnamed.size()));
  for (size_t i = 0; i < unnamed.size(); ++i) kept[fresh[i]] = unnamed[i];
  for (const auto& [ordinal, node] : kept) {
    out.push_back({SlurmNodeName(prefix, ordinal), node_set.metadata().name(), node});
  }
}

}  // namespace

std::vector<PlannedMember> PlanMembers(const std::vector<NodeSet>& node_sets,
                                       const std::vector<NodeInfo>& nodes,
                                       std::vector<std::string>& warnings) {
  std::vector<const NodeInfo*> pointers;
  pointers.reserve(nodes.size());
  for (const NodeInfo& node : nodes) pointers.push_back(&node);
  return PlanMembers(node_sets, std::move(pointers), warnings);
}

std::vector<PlannedMember> PlanMembers(const std::vector<NodeSet>& node_sets,
                                       std::vector<const NodeInfo*> sorted_nodes,
                                       std::vector<std::string>& warnings) {
  std::sort(sorted_nodes.begin(), sorted_nodes.end(), [](const NodeInfo* a, const NodeInfo* b) {
    return a->metadata().name() < b->metadata().name();
  });
  std::vector<const NodeSet*> ordered;
  for (const NodeSet& node_set : node_sets) ordered.push_back(&node_set);
  std::sort(ordered.begin(), ordered.end(), [](const NodeSet* a, const NodeSet* b) {
    return a->metadata().name() < b->metadata().name();
  });
  absl::flat_hash_map<const NodeInfo*, std::string> owner;
  std::vector<PlannedMember> members;
  for (const NodeSet* node_set : ordered) {
    std::vector<const NodeInfo*> chosen;
    const bool capped = node_set->spec().has_replicas();
    for (const NodeInfo* node : sorted_nodes) {
      if (!NodeSetFitsNode(*node_set, *node)) continue;
      if (auto it = owner.find(node); it != owner.end()) {
        warnings.push_back(absl::StrCat("Node ", node->metadata().name(), " fits NodeSets ",
                                        it->second, " and ", node_set->metadata().name(),
                                        "; it belongs to ", it->second));
        continue;
      }
      if (capped && static_cast<int>(chosen.size()) >= node_set->spec().replicas()) continue;
      owner[node] = node_set->metadata().name();
      chosen.push_back(node);
    }
    NameMembers(*node_set, chosen, members);
  }
  return members;
}

}  // namespace tidepool::api

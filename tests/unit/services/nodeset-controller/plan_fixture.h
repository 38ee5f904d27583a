#pragma once

// Small constructors for plan inputs shared by the plan and status tests.

#include <initializer_list>
#include <string>
#include <vector>

#include "plan.h"

namespace tidepool::nodeset::testing {

inline constexpr char kHash[] = "sha256:current";

inline ObservedPod Pod(std::string name, std::string node, bool ready = true,
                       std::string hash = kHash) {
  return {.name = std::move(name),
          .uid = "uid-" + node,
          .node_name = std::move(node),
          .template_hash = std::move(hash),
          .ready = ready};
}

inline std::vector<FeasibleNode> Feasible(std::initializer_list<const char*> nodes,
                                          const std::string& prefix = "n") {
  std::vector<FeasibleNode> feasible;
  int ordinal = 1;
  for (const char* node : nodes) {
    feasible.push_back({node, prefix + "-0" + std::to_string(ordinal++), ""});
  }
  return feasible;
}

// A Slurm node with the base state and flags the syncer would derive.
inline tidepool::v1::SlurmNode SlurmNode(const std::string& name, const std::string& base,
                                         bool drain = false, const std::string& reason = "") {
  tidepool::v1::SlurmNode node;
  node.set_name(name);
  node.add_states(base);
  if (drain) node.add_states("DRAIN");
  node.set_reason(reason);
  node.set_drain(drain);
  node.set_idle(base == "IDLE");
  node.set_down(base == "DOWN");
  node.set_drained(drain && (base == "IDLE" || base == "DOWN"));
  node.set_reason_owned_by_k8s(reason.rfind("k8s:", 0) == 0);
  return node;
}

inline SlurmView Reachable(std::initializer_list<tidepool::v1::SlurmNode> nodes) {
  SlurmView view;
  view.reachable = true;
  for (const auto& node : nodes) view.nodes[node.name()] = node;
  return view;
}

}  // namespace tidepool::nodeset::testing

#pragma once

#include <string>
#include <vector>

#include "tidepool/v1/meta.pb.h"
#include "tidepool/v1/node_set.pb.h"

namespace tidepool::api {

struct PlannedMember {
  std::string slurm_node_name;
  std::string node_set;
  const tidepool::v1::NodeInfo* node = nullptr;
};

// Which Kubernetes Nodes each NodeSet takes and the Slurm name of each, as the
// nodeset-controller decides it: NodeSets in name order, each taking the feasible Nodes
// no earlier NodeSet took (a Node belongs to at most one NodeSet), in Node-name order, up
// to spec.replicas. A Node keeps the name in its tidepool.dev/slurm-node label when that
// name has the NodeSet's prefix; other Nodes get the lowest free ordinals. Appends a
// warning for each Node that two NodeSets both fit.
std::vector<PlannedMember> PlanMembers(const std::vector<tidepool::v1::NodeSet>& node_sets,
                                       const std::vector<tidepool::v1::NodeInfo>& nodes,
                                       std::vector<std::string>& warnings);
// The same over Nodes held elsewhere (a cache's: 10,000 Nodes are not copied per plan).
// No pointer may be null.
std::vector<PlannedMember> PlanMembers(const std::vector<tidepool::v1::NodeSet>& node_sets,
                                       std::vector<const tidepool::v1::NodeInfo*> nodes,
                                       std::vector<std::string>& warnings);

}  // namespace tidepool::api

#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "slurm/conf/model.h"
#include "tidepool/v1/renderer.pb.h"
#include "tidepool/v1/slurm_cluster.pb.h"

namespace tidepool::renderer {

// The label levels of a tree topology when the cluster names none, top level first.
std::vector<std::string> DefaultTreeLabels();
// The NVLink-domain label of a block topology when the cluster names none.
std::string DefaultBlockLabel();

// "" for none, otherwise "topology/tree" or "topology/block"; error for anything else.
absl::StatusOr<std::string> TopologyPluginName(const tidepool::v1::TopologySpec& spec);

// topology.conf for the members (given in rendering order). Members that lack a label
// the topology needs are reported in `warnings`: in a tree they hang off a switch named
// "unlabeled"; in block topology they are in no block.
absl::StatusOr<slurm::TopologyConf> DeriveTopology(
    const tidepool::v1::TopologySpec& spec,
    const std::vector<const tidepool::v1::MemberNode*>& members,
    std::vector<std::string>& warnings);

}  // namespace tidepool::renderer

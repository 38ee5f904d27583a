#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "slurm/conf/model.h"
#include "tidepool/v1/renderer.pb.h"
#include "tidepool/v1/slurm_cluster.pb.h"

namespace tidepool::renderer {

// "" for none, otherwise "topology/tree" or "topology/block"; error for anything else.
absl::StatusOr<std::string> TopologyPluginName(const tidepool::v1::TopologySpec& spec);

// Collects what a topology needs from members one at a time, in any order, so that a
// caller already visiting each member (Render, deriving node attributes) reads the member's
// labels while they are in cache instead of in a second pass over 10,000 Nodes.
class TopologyCollector {
 public:
  // Keeps a reference to `spec`; errors in it are reported by Finish().
  TopologyCollector(const tidepool::v1::TopologySpec& spec, size_t members);
  ~TopologyCollector();

  // `position` is the member's place in rendering order, below `members`; the result is
  // that of adding the members in that order.
  void Add(const tidepool::v1::MemberNode& member, size_t position);

  // The topology of the members added, as DeriveTopology() describes it. Keeps views into
  // the members, which must outlive this call.
  absl::StatusOr<slurm::TopologyConf> Finish(std::vector<std::string>& warnings) const;

 private:
  struct Collected;
  const tidepool::v1::TopologySpec& spec_;
  std::string plugin_;
  std::unique_ptr<Collected> collected_;
};

// topology.conf for the members (given in rendering order). Members that lack a label
// the topology needs are reported in `warnings`: in a tree they hang off a switch named
// "unlabeled"; in block topology they are in no block.
absl::StatusOr<slurm::TopologyConf> DeriveTopology(
    const tidepool::v1::TopologySpec& spec,
    const std::vector<const tidepool::v1::MemberNode*>& members,
    std::vector<std::string>& warnings);

}  // namespace tidepool::renderer

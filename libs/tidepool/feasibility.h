#pragma once

#include <string>

#include "absl/container/flat_hash_set.h"
#include "tidepool/v1/meta.pb.h"
#include "tidepool/v1/node_set.pb.h"

namespace tidepool::api {

// Whether a NodeSet may place its slurmd pod on a Node, as the Kubernetes scheduler would
// decide it: spec.nodeSelector, required node affinity (matchExpressions with In, NotIn,
// Exists, DoesNotExist, Gt, Lt), and NoSchedule/NoExecute taints against tolerations.
// When not, `reason` says why, for events and status.
bool NodeSetFitsNode(const tidepool::v1::NodeSet& node_set, const tidepool::v1::NodeInfo& node,
                     std::string* reason = nullptr);

// The Node label keys NodeSetFitsNode reads for `node_set`: its node selector's and its
// required affinity's expressions' keys.
absl::flat_hash_set<std::string> NodeSetFitLabelKeys(const tidepool::v1::NodeSet& node_set);

}  // namespace tidepool::api

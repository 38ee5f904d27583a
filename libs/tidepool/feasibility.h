#pragma once

#include <string>

#include "tidepool/v1/meta.pb.h"
#include "tidepool/v1/node_set.pb.h"

namespace tidepool::api {

// Whether a NodeSet may place its slurmd pod on a Node, as the Kubernetes scheduler would
// decide it: spec.nodeSelector, required node affinity (matchExpressions with In, NotIn,
// Exists, DoesNotExist, Gt, Lt), and NoSchedule/NoExecute taints against tolerations.
// When not, `reason` says why, for events and status.
bool NodeSetFitsNode(const tidepool::v1::NodeSet& node_set, const tidepool::v1::NodeInfo& node,
                     std::string* reason = nullptr);

}  // namespace tidepool::api

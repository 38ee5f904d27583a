#pragma once

// Builders (pure: inputs in, JSON out) for what a kubelet writes about its Node: the Node
// at registration, its status, and its Lease in kube-node-lease.

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "agent_options.h"
#include "tidepool/contract.h"

namespace tidepool::node_agent {

inline constexpr char kNodeLeaseNamespace[] = "kube-node-lease";
inline constexpr int64_t kNodeLeaseDurationSeconds = 40;  // as kubelet's default
// Marks the Nodes the agent registered (tests select them with it).
using api::kAgentSimulatedNodeLabel;

// The labels the agent sets on `node`: kubernetes.io/{hostname,os,arch}, the simulated
// marker, then the node's own (which may override the defaults).
Labels AgentNodeLabels(const SimNode& node);

// A new Node (metadata and spec, no status) for Create.
std::string NewNodeJson(const SimNode& node, const NodeTemplate& node_template);

// `existing` with the agent's labels set and its taints added where missing (labels and
// taints others added are kept, as kubelet keeps them), and, once its status says Ready,
// without the not-ready/unreachable taints (what the node lifecycle controller does, which
// the test environment does not run); nullopt when nothing changes.
absl::StatusOr<std::optional<std::string>> NodeWithAgentSpec(absl::string_view existing,
                                                             const SimNode& node,
                                                             const NodeTemplate& node_template);

// `existing` with the status a healthy kubelet reports at `now`: capacity and allocatable,
// Ready=True and no pressure (heartbeat `now`; transition time kept while the status
// does not change; conditions of other types kept), addresses, daemonEndpoints, nodeInfo.
absl::StatusOr<std::string> NodeWithReadyStatus(absl::string_view existing, const SimNode& node,
                                                const NodeTemplate& node_template, absl::Time now);

// A new Lease for the node, held by the node and owned by the Node object (`node_uid`).
std::string NewNodeLeaseJson(const std::string& node_name, const std::string& node_uid,
                             absl::Time now);
// The merge patch that renews a node's Lease at `now`.
std::string LeaseRenewPatch(absl::Time now);

}  // namespace tidepool::node_agent

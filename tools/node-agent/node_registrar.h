#pragma once

// The Node side of a kubelet: registers the simulated Nodes (create, or update what the
// agent owns of an existing one), posts their Ready status, renews their Leases in
// kube-node-lease every lease interval and re-posts the Ready heartbeat every heartbeat
// interval.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "agent_options.h"
#include "common/clock.h"
#include "common/periodic_worker.h"
#include "k8s/client.h"

namespace tidepool::node_agent {

class NodeRegistrar {
 public:
  // `client` and `clock` outlive the registrar.
  NodeRegistrar(k8s::Client& client, std::vector<SimNode> nodes, NodeTemplate node_template,
                AgentTimings timings, common::Clock* clock = common::RealClock());
  ~NodeRegistrar() { Stop(); }

  // Every Node registered with a Ready status and a Lease; the first error otherwise.
  absl::Status RegisterAll();
  // Starts the lease and heartbeat loops.
  void Start();
  void Stop();
  // Deletes the Nodes and their Leases (--cleanup_nodes).
  void DeleteAll();

 private:
  absl::Status Register(const SimNode& node);
  absl::Status EnsureSpec(const SimNode& node);
  absl::Status PostReadyStatus(const SimNode& node);
  absl::Status RenewLease(const SimNode& node);
  void RenewAllLeases();
  void PostAllHeartbeats();

  k8s::Client& client_;
  const std::vector<SimNode> nodes_;
  const NodeTemplate template_;
  const AgentTimings timings_;
  common::Clock* const clock_;
  std::unique_ptr<common::PeriodicWorker> lease_worker_;
  std::unique_ptr<common::PeriodicWorker> heartbeat_worker_;
};

}  // namespace tidepool::node_agent

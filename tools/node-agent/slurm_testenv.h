#pragma once

// The Slurm test environment (tools/testenv/slurm) as the agent's container runtime: its
// scripts start and stop one slurmd per Slurm node, each in the node's own network
// namespace, and apply configuration; its run directory says which slurmd runs (pid
// files) and which address each node has (the `nodes` file).

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace tidepool::node_agent {

// A line of the `nodes` file: "NAME INDEX ADDRESS [absent]".
struct TestenvNode {
  std::string address;
  // Scale mode (up --slurmd-every): the environment runs no slurmd for this node.
  bool absent = false;
};
std::map<std::string, TestenvNode> ParseNodesFile(const std::string& content);

class SlurmTestenv {
 public:
  // `scripts_dir` holds start-slurmd, kill-slurmd, reconfigure, exec; `run_dir` is the
  // environment's run directory (${TIDEPOOL_RUN_DIR:-/run/tidepool}/slurm).
  SlurmTestenv(std::string scripts_dir, std::string run_dir, absl::Duration stop_grace);

  // FailedPrecondition when the environment is not up (no state file in the run dir).
  absl::Status CheckUp() const;
  // Whether slurmctld has the node in its running configuration.
  bool KnowsNode(const std::string& node) const;
  // Whether the node's slurmd process exists (a frozen one, SIGSTOPped by a test, counts).
  bool SlurmdRunning(const std::string& node) const;
  // Whether the environment runs no slurmd for the node (scale mode); such a node's pod
  // stands in for it without a process.
  bool SlurmdAbsent(const std::string& node) const;
  std::optional<std::string> NodeAddress(const std::string& node) const;
  std::map<std::string, std::string> NodeAddresses() const;

  absl::Status StartSlurmd(const std::string& node);
  // As a pod's termination: TERM, up to the grace period to exit, then KILL of slurmd and
  // of whatever still runs in the node's namespace. OK when it does not run.
  absl::Status StopSlurmd(const std::string& node);
  // At once, as a crash: KILL.
  absl::Status KillSlurmd(const std::string& node);
  // reconfigure --config-dir DIR --no-start --min-interval: new nodes get namespaces and
  // addresses; slurmctld is reconfigured once `min_interval` + 5 s passed since it last
  // started (a reconfigure by anyone restarts it), and not at all when it restarted after
  // the files were in place (that restart loaded them); slurmd of removed nodes stop.
  absl::Status Reconfigure(const std::string& config_dir, absl::Duration min_interval);

 private:
  absl::Status RunScript(const std::string& script, const std::vector<std::string>& args,
                         absl::Duration timeout) const;
  std::optional<int> SlurmdPid(const std::string& node) const;
  // The `nodes` file, parsed again only when it changed (thousands of pods ask).
  std::shared_ptr<const std::map<std::string, TestenvNode>> Nodes() const;

  const std::string scripts_dir_;
  const std::string run_dir_;
  const absl::Duration stop_grace_;
  // The scripts edit shared files (nodes, hosts, slurm.conf): one at a time.
  mutable absl::Mutex scripts_mutex_;
  mutable absl::Mutex nodes_mutex_;
  mutable std::string nodes_stamp_ ABSL_GUARDED_BY(nodes_mutex_);
  mutable std::shared_ptr<const std::map<std::string, TestenvNode>> nodes_
      ABSL_GUARDED_BY(nodes_mutex_);
};

}  // namespace tidepool::node_agent

#pragma once

// What the node agent simulates, as validated from its flags: the Nodes (names, labels,
// taints, resources), where the Slurm test environment is, and its timings.

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace tidepool::node_agent {

using Labels = std::map<std::string, std::string>;

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule | PreferNoSchedule | NoExecute
};

// What every simulated Node shares.
struct NodeTemplate {
  Labels labels;  // --labels plus the GPU labels
  std::vector<Taint> taints;
  std::string cpu = "4";
  std::string memory = "16Gi";
  std::string pods = "110";
  int gpu_count = 0;  // allocatable nvidia.com/gpu when > 0
};

// One simulated Node.
struct SimNode {
  std::string name;     // sim-01
  int ordinal = 0;      // 1-based
  std::string address;  // InternalIP
  Labels labels;        // the template's plus its own (--node_labels_file)
};

struct AgentTimings {
  absl::Duration lease_interval = absl::Seconds(10);
  absl::Duration heartbeat_interval = absl::Seconds(30);
  absl::Duration resync_interval = absl::Seconds(5);
  absl::Duration slurmd_stop_grace = absl::Seconds(5);
  // Least time between two reconfigures of the Slurm environment (api::ReconfigureSpacing, as the
  // cluster-controller's own).
  absl::Duration reconfigure_spacing = absl::ZeroDuration();
};

struct AgentOptions {
  std::string kubeconfig;  // empty: $KUBECONFIG, in-cluster, ~/.kube/config
  int node_count = 1;
  std::string node_prefix = "sim-";
  NodeTemplate node;
  std::map<std::string, Labels> per_node_labels;  // by node name
  std::string slurm_testenv;                      // empty: no Slurm (slurmd pods are plain pods)
  std::string slurm_run_dir;                      // the environment's run dir (pid files, nodes)
  std::string config_namespace;                   // empty: all namespaces
  std::string config_dir;                         // empty: a fresh temporary directory
  std::string gpu_placeholder_files;              // file name prefix; empty: none
  bool cleanup_nodes = false;
  double api_qps = 50;  // burst: twice as many
  AgentTimings timings;
};

// "k=v,k2=v2" (empty: none). InvalidArgument naming the bad item.
absl::StatusOr<Labels> ParseLabels(absl::string_view text);
// "key=value:Effect,key:Effect" as kubectl taint writes them.
absl::StatusOr<std::vector<Taint>> ParseTaints(absl::string_view text);
// Per-node labels, one node a line: "NODE k=v,k2=v2"; blank lines and # comments skipped.
absl::StatusOr<std::map<std::string, Labels>> ParseNodeLabelsFile(absl::string_view content);

// "<prefix><NN>" for 1..count, zero-padded to at least two digits so names sort and
// compress as hostlists do.
std::vector<std::string> SimNodeNames(absl::string_view prefix, int count);

// An address for a simulated Node that the Slurm environment did not assign: 10.77.250.1
// upward (past 10.77.255.250 into 10.78.0.1), far above the addresses the environment hands
// out (10.77.0.10 upward).
std::string SyntheticNodeAddress(int ordinal);

// The Nodes to register: names, addresses (`slurm_addresses` first, by node name) and
// labels.
std::vector<SimNode> BuildSimNodes(const AgentOptions& options,
                                   const std::map<std::string, std::string>& slurm_addresses);

}  // namespace tidepool::node_agent

#include "flags.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "k8s/quantity.h"
#include "tidepool/reconfigure_spacing.h"

ABSL_FLAG(std::string, kubeconfig, "",
          "kubeconfig of the API server; empty: $KUBECONFIG, in-cluster, ~/.kube/config");
ABSL_FLAG(int32_t, nodes, 1, "How many Nodes to simulate");
ABSL_FLAG(std::string, node_prefix, "sim-", "Node names are <prefix>01, <prefix>02, …");
ABSL_FLAG(std::string, labels, "", "Labels for every Node: k=v,k2=v2");
ABSL_FLAG(std::string, node_labels_file, "",
          "Per-node labels, one node a line: NODE k=v,k2=v2 (added to --labels)");
ABSL_FLAG(int32_t, gpu_count, 0,
          "GPUs per Node: allocatable nvidia.com/gpu and label nvidia.com/gpu.count");
ABSL_FLAG(std::string, gpu_product, "", "Label nvidia.com/gpu.product, e.g. NVIDIA-H100-80GB-HBM3");
ABSL_FLAG(std::string, cpu, "4", "CPU capacity and allocatable of each Node");
ABSL_FLAG(std::string, memory, "16Gi", "Memory capacity and allocatable of each Node");
ABSL_FLAG(std::string, taints, "", "Taints of every Node: key=value:Effect,key:Effect");
ABSL_FLAG(std::string, slurm_testenv, TIDEPOOL_SLURM_TESTENV_DIR,
          "tools/testenv/slurm (its scripts run slurmd); empty: no Slurm, slurmd pods run "
          "like plain pods and no configuration is projected");
ABSL_FLAG(std::string, slurm_run_dir, "",
          "The Slurm environment's run dir; empty: ${TIDEPOOL_RUN_DIR:-/run/tidepool}/slurm");
ABSL_FLAG(std::string, config_namespace, "",
          "Namespace of the slurm-config ConfigMap to project; empty: all namespaces");
ABSL_FLAG(std::string, gpu_placeholder_files, "",
          "With --gpu_count: also project empty files <this>0..<gpu_count-1> next to the "
          "configuration, for gres.conf File= entries (point the cluster's GPU device prefix "
          "at <config dir in Slurm>/<this>); empty: none");
ABSL_FLAG(std::string, config_dir, "",
          "Where the projected configuration is written; empty: a new directory in /tmp");
ABSL_FLAG(bool, cleanup_nodes, false, "Delete the Nodes (and their Leases) on shutdown");
ABSL_FLAG(absl::Duration, lease_interval, absl::Seconds(10), "Node Lease renewal period");
ABSL_FLAG(absl::Duration, heartbeat_interval, absl::Seconds(30),
          "Node Ready heartbeat (status) period");
ABSL_FLAG(absl::Duration, resync_interval, absl::Seconds(5),
          "How often every pod is looked at again (slurmd liveness, unknown Slurm nodes)");
ABSL_FLAG(absl::Duration, slurmd_stop_grace, absl::Seconds(5),
          "How long a slurmd has to exit after TERM before it is killed");
ABSL_FLAG(double, api_qps, 50,
          "Client-side limit of API requests per second (burst: twice as many); a kubelet "
          "per Node would have its own budget, so thousands of Nodes need more (> 0)");
ABSL_FLAG(std::string, log_level, "info", "Lowest level logged: debug, info, warn or error");

namespace tidepool::node_agent {
namespace {

absl::Status FlagError(absl::string_view flag, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat("--", flag, ": ", problem));
}

absl::Status CheckQuantity(absl::string_view flag, const std::string& value) {
  absl::StatusOr<int64_t> parsed = k8s::QuantityValue(value);
  if (!parsed.ok() || *parsed <= 0) {
    return FlagError(flag, absl::StrCat("\"", value, "\" is not a positive quantity"));
  }
  return absl::OkStatus();
}

absl::Status CheckDurations(const AgentTimings& timings) {
  for (const auto& [flag, value] : {std::pair{"lease_interval", timings.lease_interval},
                                    std::pair{"heartbeat_interval", timings.heartbeat_interval},
                                    std::pair{"resync_interval", timings.resync_interval}}) {
    if (value <= absl::ZeroDuration()) return FlagError(flag, "must be positive");
  }
  return absl::OkStatus();
}

absl::StatusOr<NodeTemplate> ReadNodeTemplate() {
  NodeTemplate node;
  absl::StatusOr<Labels> labels = ParseLabels(absl::GetFlag(FLAGS_labels));
  if (!labels.ok()) return FlagError("labels", labels.status().message());
  node.labels = *labels;
  absl::StatusOr<std::vector<Taint>> taints = ParseTaints(absl::GetFlag(FLAGS_taints));
  if (!taints.ok()) return FlagError("taints", taints.status().message());
  node.taints = *taints;
  node.cpu = absl::GetFlag(FLAGS_cpu);
  node.memory = absl::GetFlag(FLAGS_memory);
  if (absl::Status cpu = CheckQuantity("cpu", node.cpu); !cpu.ok()) return cpu;
  if (absl::Status memory = CheckQuantity("memory", node.memory); !memory.ok()) return memory;
  node.gpu_count = absl::GetFlag(FLAGS_gpu_count);
  if (node.gpu_count < 0) return FlagError("gpu_count", "must not be negative");
  if (node.gpu_count > 0) node.labels["nvidia.com/gpu.count"] = absl::StrCat(node.gpu_count);
  if (!absl::GetFlag(FLAGS_gpu_product).empty()) {
    node.labels["nvidia.com/gpu.product"] = absl::GetFlag(FLAGS_gpu_product);
  }
  return node;
}

absl::StatusOr<std::map<std::string, Labels>> ReadNodeLabelsFile() {
  const std::string path = absl::GetFlag(FLAGS_node_labels_file);
  if (path.empty()) return std::map<std::string, Labels>{};
  std::ifstream in(path);
  if (!in) return FlagError("node_labels_file", absl::StrCat("cannot read ", path));
  std::stringstream content;
  content << in.rdbuf();
  absl::StatusOr<std::map<std::string, Labels>> parsed = ParseNodeLabelsFile(content.str());
  if (!parsed.ok()) return FlagError("node_labels_file", parsed.status().message());
  return parsed;
}

std::string DefaultSlurmRunDir() {
  const char* run_dir = std::getenv("TIDEPOOL_RUN_DIR");
  return absl::StrCat(run_dir != nullptr && *run_dir != '\0' ? run_dir : "/run/tidepool", "/slurm");
}

}  // namespace

absl::StatusOr<AgentOptions> ReadAgentFlags() {
  AgentOptions options;
  options.kubeconfig = absl::GetFlag(FLAGS_kubeconfig);
  options.node_count = absl::GetFlag(FLAGS_nodes);
  if (options.node_count < 1 || options.node_count > 10000) {
    return FlagError("nodes", "must be between 1 and 10000");
  }
  options.node_prefix = absl::GetFlag(FLAGS_node_prefix);
  if (options.node_prefix.empty()) return FlagError("node_prefix", "must not be empty");
  absl::StatusOr<NodeTemplate> node = ReadNodeTemplate();
  if (!node.ok()) return node.status();
  options.node = *std::move(node);
  absl::StatusOr<std::map<std::string, Labels>> per_node = ReadNodeLabelsFile();
  if (!per_node.ok()) return per_node.status();
  options.per_node_labels = *std::move(per_node);
  options.slurm_testenv = absl::GetFlag(FLAGS_slurm_testenv);
  options.slurm_run_dir = absl::GetFlag(FLAGS_slurm_run_dir);
  if (options.slurm_run_dir.empty()) options.slurm_run_dir = DefaultSlurmRunDir();
  options.config_namespace = absl::GetFlag(FLAGS_config_namespace);
  options.config_dir = absl::GetFlag(FLAGS_config_dir);
  options.gpu_placeholder_files = absl::GetFlag(FLAGS_gpu_placeholder_files);
  if (options.gpu_placeholder_files.find('/') != std::string::npos) {
    return FlagError("gpu_placeholder_files", "is a file name prefix, not a path");
  }
  options.cleanup_nodes = absl::GetFlag(FLAGS_cleanup_nodes);
  options.api_qps = absl::GetFlag(FLAGS_api_qps);
  if (!(options.api_qps > 0) || options.api_qps > 100000) {
    return FlagError("api_qps", "must be above 0 and at most 100000");
  }
  options.timings = {.lease_interval = absl::GetFlag(FLAGS_lease_interval),
                     .heartbeat_interval = absl::GetFlag(FLAGS_heartbeat_interval),
                     .resync_interval = absl::GetFlag(FLAGS_resync_interval),
                     .slurmd_stop_grace = absl::GetFlag(FLAGS_slurmd_stop_grace),
                     .reconfigure_spacing = api::ReconfigureSpacing(options.node_count)};
  if (absl::Status durations = CheckDurations(options.timings); !durations.ok()) return durations;
  return options;
}

absl::StatusOr<common::LogLevel> ReadLogLevelFlag() {
  absl::StatusOr<common::LogLevel> level = common::ParseLogLevel(absl::GetFlag(FLAGS_log_level));
  if (!level.ok()) return FlagError("log_level", level.status().message());
  return level;
}

}  // namespace tidepool::node_agent

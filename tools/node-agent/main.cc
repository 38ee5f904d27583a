// node-agent: plays kubelet for simulated Nodes in tests (README.md beside this file).
// main only wires the pieces together.

#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <tuple>

#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "common/shutdown_signal.h"
#include "config_projector.h"
#include "flags.h"
#include "k8s/config.h"
#include "k8s/informer.h"
#include "node_registrar.h"
#include "pod_controller.h"
#include "slurm_testenv.h"
#include "tidepool/naming.h"

namespace tidepool::node_agent {
namespace {

constexpr int kExitCannotStart = 1;
constexpr int kExitBadFlags = 2;
constexpr absl::Duration kSyncTimeout = absl::Seconds(60);

absl::StatusOr<k8s::ClientConfig> ClientConfigFor(const AgentOptions& options) {
  absl::StatusOr<k8s::ClientConfig> config =
      options.kubeconfig.empty() ? k8s::DefaultConfig() : k8s::LoadKubeconfig(options.kubeconfig);
  if (!config.ok()) return config.status();
  config->user_agent = "tidepool-node-agent";
  config->qps = options.api_qps;
  config->burst = static_cast<int>(2 * options.api_qps) + 1;
  return config;
}

// The directory the configuration is projected into, and whether the agent made it.
absl::StatusOr<std::pair<std::string, bool>> ConfigDirFor(const AgentOptions& options) {
  if (!options.config_dir.empty()) return std::pair{options.config_dir, false};
  std::string pattern = "/tmp/tidepool-node-agent-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    return absl::InternalError("cannot create a directory in /tmp for the Slurm configuration");
  }
  return std::pair{pattern, true};
}

// The Slurm half: the environment and the configuration projection.
struct SlurmSide {
  std::unique_ptr<SlurmTestenv> env;
  std::unique_ptr<k8s::Informer> config_maps;
  std::unique_ptr<ConfigProjector> projector;
  std::string config_dir;
  bool remove_config_dir = false;
};

absl::Status StartProjection(k8s::Client& client, const AgentOptions& options, PodController& pods,
                             SlurmSide& slurm) {
  absl::StatusOr<std::pair<std::string, bool>> dir = ConfigDirFor(options);
  if (!dir.ok()) return dir.status();
  std::tie(slurm.config_dir, slurm.remove_config_dir) = *dir;
  slurm.config_maps = std::make_unique<k8s::Informer>(
      client, k8s::ConfigMaps(), options.config_namespace,
      k8s::InformerOptions{
          .label_selector = absl::StrCat(api::kComponentLabel, "=", api::kSlurmConfigComponent)});
  slurm.config_maps->Start();
  if (!slurm.config_maps->WaitForSync(kSyncTimeout)) {
    return absl::UnavailableError("ConfigMap informer did not sync");
  }
  slurm.projector = std::make_unique<ConfigProjector>(
      *slurm.config_maps, *slurm.env, slurm.config_dir, [&pods] { pods.EnqueueSlurmdPods(); },
      options.timings.resync_interval, options.timings.reconfigure_spacing,
      GpuPlaceholders{.prefix = options.gpu_placeholder_files, .count = options.node.gpu_count});
  slurm.projector->Start();
  return absl::OkStatus();
}

void StopSlurmSide(SlurmSide& slurm) {
  if (slurm.projector) slurm.projector->Stop();
  if (slurm.config_maps) slurm.config_maps->Stop();
  if (slurm.remove_config_dir) {
    std::error_code ignored;
    std::filesystem::remove_all(slurm.config_dir, ignored);
  }
}

int CannotStart(absl::string_view what, const absl::Status& status) {
  common::LogError("cannot_start", {{"what", what}, {"error", status}});
  return kExitCannotStart;
}

int Run(const AgentOptions& options, common::ShutdownSignal& shutdown) {
  absl::StatusOr<k8s::ClientConfig> config = ClientConfigFor(options);
  if (!config.ok()) return CannotStart("kubeconfig", config.status());
  k8s::Client client(*config);
  SlurmSide slurm;
  if (!options.slurm_testenv.empty()) {
    slurm.env = std::make_unique<SlurmTestenv>(options.slurm_testenv, options.slurm_run_dir,
                                               options.timings.slurmd_stop_grace);
    if (absl::Status up = slurm.env->CheckUp(); !up.ok()) return CannotStart("slurm", up);
  }
  const std::vector<SimNode> nodes = BuildSimNodes(
      options, slurm.env ? slurm.env->NodeAddresses() : std::map<std::string, std::string>{});
  NodeRegistrar registrar(client, nodes, options.node, options.timings);
  if (absl::Status registered = registrar.RegisterAll(); !registered.ok()) {
    return CannotStart("nodes", registered);
  }
  registrar.Start();

  // Only pods bound to some node; those on other nodes are skipped by the controller.
  k8s::Informer pods(client, k8s::Pods(), "", {.field_selector = "spec.nodeName!="});
  pods.Start();
  if (!pods.WaitForSync(kSyncTimeout)) {
    return CannotStart("pods", absl::UnavailableError("pod informer did not sync"));
  }
  PodController pod_controller(client, pods, nodes, slurm.env.get(), options.timings);
  pod_controller.Start();
  if (slurm.env) {
    if (absl::Status started = StartProjection(client, options, pod_controller, slurm);
        !started.ok()) {
      return CannotStart("config projection", started);
    }
  }
  common::LogInfo("agent_started", {{"nodes", static_cast<int>(nodes.size())},
                                    {"first_node", nodes.front().name},
                                    {"slurm", slurm.env != nullptr},
                                    {"config_dir", slurm.config_dir}});

  const int signal_number = shutdown.Wait();
  common::LogInfo("shutting_down", {{"signal", signal_number}});
  StopSlurmSide(slurm);
  pod_controller.Stop();
  pods.Stop();
  if (slurm.env) pod_controller.StopAllSlurmds();
  registrar.Stop();
  if (options.cleanup_nodes) registrar.DeleteAll();
  common::LogInfo("stopped");
  return 0;
}

}  // namespace
}  // namespace tidepool::node_agent

int main(int argc, char** argv) {
  // Before any thread exists, so that only Wait() sees SIGTERM/SIGINT.
  tidepool::common::ShutdownSignal shutdown;
  absl::SetProgramUsageMessage(
      "Plays kubelet for simulated Nodes in tests: registers Nodes, keeps their Leases, runs "
      "pods bound to them (a real slurmd for slurmd pods) and projects the Slurm "
      "configuration into tools/testenv/slurm.");
  absl::ParseCommandLine(argc, argv);
  absl::StatusOr<tidepool::common::LogLevel> level = tidepool::node_agent::ReadLogLevelFlag();
  absl::StatusOr<tidepool::node_agent::AgentOptions> options =
      tidepool::node_agent::ReadAgentFlags();
  if (!level.ok() || !options.ok()) {
    std::fprintf(
        stderr, "node-agent: %s\n",
        std::string(!level.ok() ? level.status().message() : options.status().message()).c_str());
    return tidepool::node_agent::kExitBadFlags;
  }
  tidepool::common::ConfigureLogging("node-agent", *level);
  return tidepool::node_agent::Run(*options, shutdown);
}

#include "flags.h"

#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/one_of.h"

ABSL_FLAG(std::string, renderer_address, "127.0.0.1:50061", "config-renderer gRPC host:port");
ABSL_FLAG(std::string, syncer_address, "127.0.0.1:50062", "slurm-syncer gRPC host:port");
ABSL_FLAG(absl::Duration, config_propagation_delay, absl::Seconds(5),
          "Wait after writing a ConfigMap before telling Slurm to reconfigure, for kubelet "
          "to update the controller's mounted files (0s-10m)");
ABSL_FLAG(absl::Duration, config_load_timeout, absl::Seconds(30),
          "how long slurmctld may take to load a reconfigure (with the load check) before it "
          "is sent again; each further send waits twice as long, up to 10m");
ABSL_FLAG(std::string, watch_namespace, "",
          "Only SlurmClusters in this namespace; empty: --slurm_cluster's namespace, or all");
ABSL_FLAG(std::string, slurm_cluster, "",
          "<namespace>/<name> of the one SlurmCluster this release serves (its slurm-syncer's); "
          "every other cluster is left to the release that serves it. Empty: every cluster");
ABSL_FLAG(std::vector<std::string>, controller_hosts, {},
          "SlurmctldHost entries for rendered configs; empty: <cluster>-controller-N");
ABSL_FLAG(std::string, gpu_device_prefix, "",
          "GPU device file prefix in gres.conf; empty: /dev/nvidia");
ABSL_FLAG(std::string, cgroup_plugin, "",
          "CgroupPlugin for cgroup.conf; empty: autodetect (\"disabled\" without a cgroup fs)");
ABSL_FLAG(std::string, control_plane, "pods",
          "Where each cluster's slurmctld runs: \"pods\" (the controller makes its Secrets, "
          "StatefulSet, Services) or \"external\" (run elsewhere; only config is managed)");
ABSL_FLAG(std::string, verify_config_loaded, "auto",
          "Count a reconfigure as applied only once slurmctld lists the rendered nodes, and "
          "send it again if not: \"true\", \"false\", or \"auto\" (true with "
          "--control_plane=pods; false with external, whose slurmctld may not read the "
          "rendered files)");
ABSL_FLAG(std::string, cluster_domain, "cluster.local",
          "The Kubernetes cluster's DNS domain (kubelet's clusterDomain), for the search path "
          "that lets Slurm's daemons resolve compute pods by their Slurm names");

namespace tidepool::cluster {
namespace {

absl::Status CheckAddress(absl::string_view flag, const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == address.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, "=\"", address, "\" is not host:port"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ControllerSettings> BuildControllerSettings(const RawControllerFlags& raw) {
  for (auto [flag, value] :
       {std::pair<absl::string_view, const std::string&>{"renderer_address", raw.renderer_address},
        {"syncer_address", raw.syncer_address}}) {
    if (absl::Status s = CheckAddress(flag, value); !s.ok()) return s;
  }
  if (raw.propagation_delay < absl::ZeroDuration() || raw.propagation_delay > absl::Minutes(10)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--config_propagation_delay=", absl::FormatDuration(raw.propagation_delay),
                     " is out of range; use 0s to 10m"));
  }
  if (raw.load_timeout < absl::Seconds(5) || raw.load_timeout > absl::Hours(1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--config_load_timeout=", absl::FormatDuration(raw.load_timeout),
                     " is out of range; use 5s to 1h"));
  }
  if (absl::Status s = k8s::ValidateClientFlags(raw.client); !s.ok()) return s;
  if (absl::Status s = k8s::ValidateLeaderElectionFlags(raw.leader_election); !s.ok()) return s;
  for (const std::string& host : raw.controller_hosts) {
    if (host.empty() || absl::StrContains(host, " ")) {
      return absl::InvalidArgumentError(
          absl::StrCat("--controller_hosts: \"", host, "\" is not a host name"));
    }
  }
  if (absl::Status s =
          common::CheckOneOf("--control_plane=", raw.control_plane, {"pods", "external"});
      !s.ok()) {
    return s;
  }
  if (absl::Status s = common::CheckOneOf("--verify_config_loaded=", raw.verify_config_loaded,
                                          {"auto", "true", "false"});
      !s.ok()) {
    return s;
  }
  if (raw.cluster_domain.empty() ||
      raw.cluster_domain.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-.") !=
          std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("--cluster_domain=\"", raw.cluster_domain,
                                                   "\" is not a DNS domain such as cluster.local"));
  }
  absl::StatusOr<api::ServedCluster> served =
      api::ServedCluster::FromFlags(raw.slurm_cluster, raw.watch_namespace);
  if (!served.ok()) return served.status();
  ControllerSettings settings{.client = raw.client,
                              .renderer_address = raw.renderer_address,
                              .syncer_address = raw.syncer_address};
  settings.loop.control_plane =
      raw.control_plane == "pods" ? ControlPlane::kPods : ControlPlane::kExternal;
  settings.loop.verify_loaded = raw.verify_config_loaded == "auto"
                                    ? settings.loop.control_plane == ControlPlane::kPods
                                    : raw.verify_config_loaded == "true";
  settings.loop.cluster_domain = raw.cluster_domain;
  settings.loop.propagation_delay = raw.propagation_delay;
  settings.loop.load_timeout = raw.load_timeout;
  settings.loop.served = *std::move(served);
  settings.loop.leadership = {.enabled = raw.leader_election.enabled,
                              .lease_namespace = raw.leader_election.lease_namespace,
                              .lease_name = "cluster-controller"};
  for (const std::string& host : raw.controller_hosts) {
    settings.loop.environment.add_controller_hosts(host);
  }
  settings.loop.environment.set_gpu_device_prefix(raw.gpu_device_prefix);
  settings.loop.environment.set_cgroup_plugin(raw.cgroup_plugin);
  // slurmd pods fetch the configuration from the slurmctld pods (images/slurm/entrypoint).
  settings.loop.environment.set_configless(settings.loop.control_plane == ControlPlane::kPods);
  return settings;
}

RawControllerFlags ReadControllerFlags() {
  return {.client = k8s::ReadClientFlags(),
          .renderer_address = absl::GetFlag(FLAGS_renderer_address),
          .syncer_address = absl::GetFlag(FLAGS_syncer_address),
          .propagation_delay = absl::GetFlag(FLAGS_config_propagation_delay),
          .load_timeout = absl::GetFlag(FLAGS_config_load_timeout),
          .watch_namespace = absl::GetFlag(FLAGS_watch_namespace),
          .slurm_cluster = absl::GetFlag(FLAGS_slurm_cluster),
          .leader_election = k8s::ReadLeaderElectionFlags(),
          .controller_hosts = absl::GetFlag(FLAGS_controller_hosts),
          .gpu_device_prefix = absl::GetFlag(FLAGS_gpu_device_prefix),
          .cgroup_plugin = absl::GetFlag(FLAGS_cgroup_plugin),
          .control_plane = absl::GetFlag(FLAGS_control_plane),
          .verify_config_loaded = absl::GetFlag(FLAGS_verify_config_loaded),
          .cluster_domain = absl::GetFlag(FLAGS_cluster_domain)};
}

}  // namespace tidepool::cluster

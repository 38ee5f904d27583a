#pragma once

// cluster-controller's own flags (the common ones are in common/service_flags.h, the
// Kubernetes client and leader-election ones in k8s/client_flags.h), validated into the
// config loop's options.

#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "controller.h"
#include "k8s/client_flags.h"

ABSL_DECLARE_FLAG(std::string, renderer_address);
ABSL_DECLARE_FLAG(std::string, syncer_address);
ABSL_DECLARE_FLAG(absl::Duration, config_propagation_delay);
ABSL_DECLARE_FLAG(absl::Duration, config_load_timeout);
ABSL_DECLARE_FLAG(std::string, watch_namespace);
ABSL_DECLARE_FLAG(std::string, slurm_cluster);
ABSL_DECLARE_FLAG(std::vector<std::string>, controller_hosts);
ABSL_DECLARE_FLAG(std::string, gpu_device_prefix);
ABSL_DECLARE_FLAG(std::string, cgroup_plugin);
ABSL_DECLARE_FLAG(std::string, control_plane);
ABSL_DECLARE_FLAG(std::string, verify_config_loaded);
ABSL_DECLARE_FLAG(std::string, cluster_domain);

namespace tidepool::cluster {

struct RawControllerFlags {
  k8s::ClientFlags client;
  std::string renderer_address;
  std::string syncer_address;
  absl::Duration propagation_delay;
  absl::Duration load_timeout = absl::Seconds(30);
  std::string watch_namespace;
  std::string slurm_cluster;
  k8s::LeaderElectionFlags leader_election;
  std::vector<std::string> controller_hosts;
  std::string gpu_device_prefix;
  std::string cgroup_plugin;
  std::string control_plane;
  std::string verify_config_loaded = "auto";
  std::string cluster_domain;
};

struct ControllerSettings {
  k8s::ClientFlags client;
  std::string renderer_address;
  std::string syncer_address;
  ConfigLoopOptions loop;
};

// The error names the flag and says what is accepted.
absl::StatusOr<ControllerSettings> BuildControllerSettings(const RawControllerFlags& raw);
RawControllerFlags ReadControllerFlags();

}  // namespace tidepool::cluster

#pragma once

// What a slurmd pod needs to join its Slurm cluster on a real kubelet, added to the pod
// built from the NodeSet's template: the cluster's rendered configuration and munge key
// mounted where the Slurm image's entrypoint looks for them, the login users' accounts (an
// optional ConfigMap, so slurmd resolves the uids jobs run as), the prolog and epilog
// scripts (SlurmCluster spec.prolog/epilog.configMap) where the rendered slurm.conf runs
// them from, and DNS through the cluster's headless compute Service so Slurm's daemons
// resolve a node by its bare Slurm name.
// None of it is part of the template hash: it comes from the cluster, not the NodeSet.

#include <string>

#include "absl/status/status.h"
#include "rapidjson/document.h"

namespace tidepool::nodeset {

inline constexpr char kSlurmConfigVolume[] = "slurm-config";
inline constexpr char kMungeKeyVolume[] = "munge-key";
inline constexpr char kUsersVolume[] = "slurm-users";
inline constexpr char kSlurmConfigMountPath[] = "/etc/tidepool/slurm-config";
inline constexpr char kMungeKeyMountPath[] = "/etc/tidepool/munge";
inline constexpr char kUsersMountPath[] = "/etc/tidepool/users";
// The directories config-renderer's Prolog= and Epilog= globs name (its default
// RenderEnvironment prolog_dir and epilog_dir); slurmd runs the scripts in name order.
inline constexpr char kPrologVolume[] = "slurm-prolog";
inline constexpr char kEpilogVolume[] = "slurm-epilog";
inline constexpr char kPrologMountPath[] = "/etc/slurm/prolog.d";
inline constexpr char kEpilogMountPath[] = "/etc/slurm/epilog.d";
// The runners slurm.conf's Prolog= / Epilog= name, from the cluster's slurm-config
// ConfigMap, at api::kHookRunnerDir: they run the scripts above in name order.
inline constexpr char kHookRunnersVolume[] = "slurm-hook-runners";
// Read by images/slurm/entrypoint.
inline constexpr char kSlurmConfigDirEnv[] = "TIDEPOOL_SLURM_CONFIG_DIR";
inline constexpr char kMungeKeyEnv[] = "TIDEPOOL_MUNGE_KEY";
inline constexpr char kUsersDirEnv[] = "TIDEPOOL_USERS_DIR";

struct ClusterWiring {
  std::string cluster;           // the SlurmCluster's name
  std::string ns;                // the pod's (and the cluster's) namespace
  std::string munge_key_secret;  // the Secret holding api::kMungeKeyFile
  std::string cluster_domain;    // the Kubernetes cluster's DNS domain, "cluster.local"
  // SlurmCluster spec.prolog.configMap and spec.epilog.configMap ("" when unset).
  std::string prolog_config_map;
  std::string epilog_config_map;
};

// Adds the config, munge key and users volumes to the pod spec (after the template's).
// InvalidArgument naming the field when the template already has a volume by one of
// these names.
absl::Status AddClusterVolumes(const ClusterWiring& wiring, rapidjson::Value& pod_spec,
                               rapidjson::Document::AllocatorType& allocator);

// Mounts the three volumes read-only in the slurmd container and points the entrypoint at
// them with env entries the template does not set itself. InvalidArgument naming the
// field when the template already mounts something at one of the paths.
absl::Status MountClusterFiles(rapidjson::Value& slurmd,
                               rapidjson::Document::AllocatorType& allocator);

// When the cluster names prolog or epilog ConfigMaps: each as an executable volume,
// mounted read-only in the slurmd container at kPrologMountPath / kEpilogMountPath. On
// every pod, scripts or not: the runners from the slurm-config ConfigMap (executable,
// optional: absent files are skipped) at api::kHookRunnerDir. A pod made before the
// cluster named scripts thus has the runner slurm.conf's Prolog= names once kubelet
// refreshes the volume (finding no scripts, it runs none) instead of a missing program,
// which would make every prolog fail and drain the node.
// InvalidArgument naming the field when the template already uses the volume name or path.
absl::Status AddScripts(const ClusterWiring& wiring, rapidjson::Value& pod_spec,
                        rapidjson::Value& slurmd, rapidjson::Document::AllocatorType& allocator);

// subdomain = the compute Service, its search domain appended to dnsConfig.searches, and
// ClusterFirstWithHostNet for a host-network pod whose template sets no dnsPolicy (else
// it would not see cluster DNS at all).
void AddComputeDns(const ClusterWiring& wiring, rapidjson::Value& pod_spec,
                   rapidjson::Document::AllocatorType& allocator);

}  // namespace tidepool::nodeset

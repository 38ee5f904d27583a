#pragma once

// What a slurmd pod needs to join its Slurm cluster on a real kubelet, added to the pod
// built from the NodeSet's template: the cluster's rendered configuration and munge key
// mounted where the Slurm image's entrypoint looks for them (and the login users'
// accounts, an optional ConfigMap, so slurmd resolves the uids jobs run as), and DNS through the
// cluster's headless compute Service so Slurm's daemons resolve a node by its bare Slurm name. None
// of it is part of the template hash: it comes from the cluster, not the NodeSet.

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
// Read by images/slurm/entrypoint.
inline constexpr char kSlurmConfigDirEnv[] = "TIDEPOOL_SLURM_CONFIG_DIR";
inline constexpr char kMungeKeyEnv[] = "TIDEPOOL_MUNGE_KEY";
inline constexpr char kUsersDirEnv[] = "TIDEPOOL_USERS_DIR";

struct ClusterWiring {
  std::string cluster;           // the SlurmCluster's name
  std::string ns;                // the pod's (and the cluster's) namespace
  std::string munge_key_secret;  // the Secret holding api::kMungeKeyFile
  std::string cluster_domain;    // the Kubernetes cluster's DNS domain, "cluster.local"
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

// subdomain = the compute Service, its search domain appended to dnsConfig.searches, and
// ClusterFirstWithHostNet for a host-network pod whose template sets no dnsPolicy (else
// it would not see cluster DNS at all).
void AddComputeDns(const ClusterWiring& wiring, rapidjson::Value& pod_spec,
                   rapidjson::Document::AllocatorType& allocator);

}  // namespace tidepool::nodeset

#pragma once

// Pure builders of a cluster's login pods (login_sync.h applies them): the Deployment and
// Service "<cluster>-login" where users ssh in and run Slurm's clients. A Deployment, not a
// StatefulSet: a login pod has no identity or storage of its own (the host key and the
// accounts come from the cluster), and a Deployment replaces a pod lost with its Node at
// once, where a StatefulSet waits until the old pod is known to be gone.
//
// The pod runs sshd from spec.images.login with the rendered configuration and the munge
// key (for the clients), the host key Secret (ssh_host_keys.h), the users' authorized_keys
// (the sshKeysSecret) and their accounts: the users ConfigMap (login_users.h) or, with
// spec.login.sssdConfigSecret, SSSD's configuration as /etc/sssd/sssd.conf (mode 0600).
// images/slurm/entrypoint puts each in place.

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tidepool/v1/slurm_cluster.pb.h"

namespace tidepool::cluster {

// Where the login pod has what it mounts (the entrypoint reads these paths).
inline constexpr char kSshHostKeysMountPath[] = "/etc/tidepool/ssh-host-keys";
inline constexpr char kSshKeysMountPath[] = "/etc/tidepool/ssh-keys";
inline constexpr char kSssdConfigMountPath[] = "/etc/sssd";
// The data key of the sssdConfigSecret.
inline constexpr char kSssdConfigFile[] = "sssd.conf";

struct LoginInputs {
  const v1::SlurmCluster* cluster = nullptr;
  std::string munge_key_secret;
};

// spec.login.replicas (default 1); InvalidArgument naming the field outside 0..100.
absl::StatusOr<int> LoginReplicas(const v1::SlurmCluster& cluster);
// Whether the spec asks for login pods: spec.login given with replicas of at least 1.
bool LoginWanted(const v1::SlurmCluster& cluster);
// spec.login.serviceType, ClusterIP when empty.
std::string LoginServiceType(const v1::SlurmCluster& cluster);
// replicas, images.login, serviceType (ClusterIP|NodePort|LoadBalancer) and
// sshKeysSecret, checked; the error names the field.
absl::Status ValidateLoginSpec(const v1::SlurmCluster& cluster);

// Server-side apply bodies (JSON). Call only with a spec ValidateLoginSpec accepts.
std::string LoginDeploymentBody(const LoginInputs& inputs);
std::string LoginServiceBody(const v1::SlurmCluster& cluster);

}  // namespace tidepool::cluster

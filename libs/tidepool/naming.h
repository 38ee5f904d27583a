#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "tidepool/contract.h"
#include "tidepool/v1/node_set.pb.h"

namespace tidepool::api {

// Labels and annotations: contract.h (included, so users of the names need only this).

// The ConfigMap with a SlurmCluster's rendered files (slurm.conf, gres.conf,
// topology.conf, cgroup.conf): "<cluster>-slurm-config" in the cluster's namespace.
std::string SlurmConfigMapName(absl::string_view cluster);

// The cluster's auth Secrets when the cluster-controller generates them:
// "<cluster>-munge-key" (data key kMungeKeyFile) and "<cluster>-jwt-key" (kJwtKeyFile).
std::string MungeKeySecretName(absl::string_view cluster);
std::string JwtKeySecretName(absl::string_view cluster);
inline constexpr char kMungeKeyFile[] = "munge.key";
inline constexpr char kJwtKeyFile[] = "jwt_hs256.key";

// slurmctld: StatefulSet and headless Service "<cluster>-controller" (pods
// "<cluster>-controller-<i>"), state PVC "<cluster>-controller-state".
std::string ControllerName(absl::string_view cluster);
std::string ControllerPodName(absl::string_view cluster, int index);
std::string ControllerStateClaimName(absl::string_view cluster);

// The headless Service "<cluster>-compute" over a cluster's slurmd pods: each is the
// subdomain of its pods, so "<slurm node>.<cluster>-compute.<ns>.svc.<domain>" resolves to
// the pod, and Slurm's daemons find a node by its bare name with ComputeSearchDomain in
// their DNS search path (no NodeAddr in slurm.conf).
std::string ComputeServiceName(absl::string_view cluster);
std::string ComputeSearchDomain(absl::string_view cluster, absl::string_view ns,
                                absl::string_view cluster_domain);
inline constexpr char kDefaultClusterDomain[] = "cluster.local";

// slurmrestd: Deployment and Service "<cluster>-restapi", serving HTTPS with JWT auth on
// kSlurmrestdPort (in-cluster URL https://<cluster>-restapi.<namespace>.svc:6820). TLS ends
// in the pod, in front of slurmrestd on its loopback port kSlurmrestdLoopbackPort; the
// certificate is in the Secret "<cluster>-restapi-tls" (ca.crt, tls.crt, tls.key) that the
// cluster-controller generates and slurm-syncer trusts.
std::string RestApiName(absl::string_view cluster);
std::string RestApiTlsSecretName(absl::string_view cluster);
inline constexpr int kSlurmrestdPort = 6820;
inline constexpr int kSlurmrestdLoopbackPort = 6821;

// slurmdbd: Deployment and Service "<cluster>-accounting" on kSlurmdbdPort (the renderer's
// AccountingStorageHost). Its managed MariaDB: StatefulSet and headless Service
// "<cluster>-accounting-db" on kAccountingDatabasePort, credentials in the generated Secret
// "<cluster>-accounting-db-credentials" (keys username, password).
std::string AccountingName(absl::string_view cluster);
std::string AccountingDatabaseName(absl::string_view cluster);
std::string AccountingCredentialsSecretName(absl::string_view cluster);
inline constexpr int kSlurmdbdPort = 6819;
inline constexpr int kAccountingDatabasePort = 3306;

// Login pods: Deployment and Service "<cluster>-login" (sshd on kSshPort), their host
// keys in the Secret "<cluster>-login-host-keys", and the ConfigMap "<cluster>-users"
// (files kUsersPasswdFile and kUsersGroupFile) with the accounts of the login users, which
// every Slurm pod of the cluster mounts.
std::string LoginName(absl::string_view cluster);
std::string LoginHostKeysSecretName(absl::string_view cluster);
std::string UsersConfigMapName(absl::string_view cluster);
inline constexpr int kSshPort = 22;
inline constexpr char kUsersPasswdFile[] = "passwd";
inline constexpr char kUsersGroupFile[] = "group";

// spec.namePrefix, or metadata.name when unset.
std::string NamePrefix(const tidepool::v1::NodeSet& node_set);

// "<prefix>-<NN>": the ordinal zero-padded to two digits, so names stay range-compressible.
std::string SlurmNodeName(absl::string_view prefix, int ordinal);

// The ordinal of `name` if it is "<prefix>-<digits>", else -1.
int OrdinalOf(absl::string_view prefix, absl::string_view name);

// The lowest ordinals >= 1 not in `taken`, `count` of them.
std::vector<int> LowestFreeOrdinals(const std::vector<int>& taken, int count);

}  // namespace tidepool::api

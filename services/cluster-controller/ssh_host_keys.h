#pragma once

// The login pods' SSH host key: generated once by the cluster-controller into the owned,
// immutable Secret "<cluster>-login-host-keys" and mounted into every login pod, so every
// replica and every restart presents the same key behind the one Service and users'
// known_hosts stay valid. The key is ECDSA P-256 in PEM (PKCS#8), which sshd loads through
// OpenSSL. Like the auth keys, its bytes never reach a message, log or event.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "auth_builders.h"
#include "tidepool/v1/slurm_cluster.pb.h"

namespace tidepool::cluster {

// The file name in the Secret's data and in /etc/ssh (sshd's default HostKey path).
inline constexpr char kSshHostKeyFile[] = "ssh_host_ecdsa_key";

// A new ECDSA P-256 private key as PEM, from OpenSSL's CSPRNG.
absl::StatusOr<std::string> GenerateSshHostKey();

// The body to POST for the Secret holding `private_key_pem`: immutable, owned by the
// cluster, labelled with the login component.
std::string SshHostKeySecretBody(const v1::SlurmCluster& cluster,
                                 absl::string_view private_key_pem);

// An existing "<cluster>-login-host-keys": usable when this SlurmCluster controls it and it
// holds a key under kSshHostKeyFile; otherwise what is wrong and what to do.
SecretVerdict CheckSshHostKeySecret(const v1::SlurmCluster& cluster, absl::string_view secret_json);

}  // namespace tidepool::cluster

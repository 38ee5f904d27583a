#pragma once

// The JWT key of a SlurmCluster as the cluster-controller keeps it: the Secret named by
// spec.auth.jwtKeySecret, else <cluster>-jwt-key, data key jwt_hs256.key (base64).
// Errors name the object and what is wrong with it, never the key's bytes.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "k8s/client.h"
#include "tidepool/cluster_ref.h"
#include "tidepool/v1/slurm_cluster.pb.h"

namespace tidepool::syncer {

// slurmrestd refuses nothing shorter, but an HS256 key under 32 bytes is too weak; the
// cluster-controller holds user Secrets to the same minimum.
inline constexpr size_t kMinimumJwtKeyBytes = 32;

// spec.auth.jwtKeySecret, or the generated <cluster>-jwt-key when that is empty.
std::string JwtKeySecretNameOf(const v1::SlurmCluster& cluster);

// The decoded key of a Secret's JSON: FailedPrecondition naming `secret` ("hpc/x-jwt-key")
// when the data key is missing, not base64 or shorter than kMinimumJwtKeyBytes.
absl::StatusOr<std::string> JwtKeyFromSecret(absl::string_view secret_json,
                                             absl::string_view secret);

struct ClusterJwtKey {
  std::string key;
  std::string secret;  // "hpc/research-jwt-key": where it came from, for messages
};

// Reads the SlurmCluster, then its Secret, each GET bounded by `timeout`. A missing object
// is FailedPrecondition naming it; an API failure keeps its code and names the object.
absl::StatusOr<ClusterJwtKey> ReadClusterJwtKey(k8s::Client& client, const api::ClusterRef& cluster,
                                                absl::Duration timeout);

}  // namespace tidepool::syncer

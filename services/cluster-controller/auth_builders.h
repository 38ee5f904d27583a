#pragma once

// Pure builders and readers of the auth step's Secrets: which Secret holds each of a
// cluster's keys (the one spec.auth names, or "<cluster>-munge-key" / "<cluster>-jwt-key"
// that the controller generates and owns), the body of a generated one, and whether an
// existing one can be used. A Secret's key bytes never reach a message: the messages end
// up in logs, events and status.

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"
#include "tidepool/v1/slurm_cluster.pb.h"

namespace tidepool::cluster {

// One of the cluster's two keys.
struct AuthKeyKind {
  const char* what;        // "munge key", for messages
  const char* data_key;    // the file name in the Secret's data (api::kMungeKeyFile)
  const char* component;   // the tidepool.dev/component label of a generated Secret
  const char* spec_field;  // "spec.auth.mungeKeySecret"
  size_t generated_bytes;  // how many random bytes a generated key has
  size_t minimum_bytes;    // fewer is refused
  std::string (*generated_name)(absl::string_view cluster);
  const std::string& (*named_secret)(const v1::AuthSpec& auth);  // the spec field's value
};

const AuthKeyKind& MungeKeyKind();  // 1024 random bytes, at least 32 (munged's minimum)
const AuthKeyKind& JwtKeyKind();    // 64 random bytes (HS256), at least 32

// The Secret that holds a key of the cluster, in the cluster's namespace.
struct AuthSecretRef {
  std::string name;
  bool generated = false;  // the controller's own; otherwise the user's, never written
};
AuthSecretRef AuthSecretOf(const v1::SlurmCluster& cluster, const AuthKeyKind& kind);

// The body to POST for a generated Secret holding `key`: type Opaque, immutable, the
// key base64 in data, labels tidepool.dev/component and tidepool.dev/cluster, and the
// SlurmCluster as controlling owner (the Secret goes when the cluster does).
std::string GeneratedSecretBody(const v1::SlurmCluster& cluster, const AuthKeyKind& kind,
                                absl::string_view key);

// Whether an auth Secret can be used; when not, what is wrong and what to do about it,
// naming the Secret and never its content.
struct SecretVerdict {
  bool usable = false;
  std::string problem;
};

// A generated Secret that already exists (made by an earlier sync or leader): it must be
// controlled by this SlurmCluster and hold a long enough key.
SecretVerdict CheckGeneratedSecret(const v1::SlurmCluster& cluster, const AuthKeyKind& kind,
                                   absl::string_view secret_json);
// The user's Secret that spec.auth names: it must hold a long enough key.
SecretVerdict CheckUserSecret(const v1::SlurmCluster& cluster, const AuthKeyKind& kind,
                              absl::string_view secret_json);
// The user's Secret that spec.auth names does not exist.
SecretVerdict MissingUserSecret(const v1::SlurmCluster& cluster, const AuthKeyKind& kind);

}  // namespace tidepool::cluster

#include "cluster_jwt_key.h"

#include "absl/strings/str_cat.h"
#include "cluster_object.h"
#include "k8s/object_json.h"
#include "k8s/resource.h"
#include "k8s/secret_data.h"
#include "tidepool/naming.h"
#include "tidepool/resource_types.h"
#include "tidepool/resources.h"

namespace tidepool::syncer {

std::string JwtKeySecretNameOf(const v1::SlurmCluster& cluster) {
  const std::string& named = cluster.spec().auth().jwt_key_secret();
  return named.empty() ? api::JwtKeySecretName(cluster.metadata().name()) : named;
}

absl::StatusOr<std::string> JwtKeyFromSecret(absl::string_view secret_json,
                                             absl::string_view secret) {
  absl::StatusOr<std::string> key = k8s::SecretDataValue(secret_json, api::kJwtKeyFile);
  if (!key.ok()) return SecretProblem(secret, key.status().message());
  if (key->size() < kMinimumJwtKeyBytes) {
    return SecretProblem(secret, absl::StrCat("holds a JWT key of ", key->size(), " bytes under \"",
                                              api::kJwtKeyFile, "\", fewer than the ",
                                              kMinimumJwtKeyBytes, " needed"));
  }
  return key;
}

absl::StatusOr<ClusterJwtKey> ReadClusterJwtKey(k8s::Client& client, const api::ClusterRef& cluster,
                                                absl::Duration timeout) {
  absl::StatusOr<std::string> cluster_json = GetClusterObject(
      client, api::SlurmClusters(), "SlurmCluster", cluster.namespace_name, cluster.name, timeout);
  if (!cluster_json.ok()) return cluster_json.status();
  absl::StatusOr<v1::SlurmCluster> parsed = api::ParseSlurmCluster(*cluster_json);
  if (!parsed.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("SlurmCluster ", cluster.ToString(), ": ", parsed.status().message()));
  }
  const std::string secret_name = JwtKeySecretNameOf(*parsed);
  const std::string secret = absl::StrCat(cluster.namespace_name, "/", secret_name);
  absl::StatusOr<std::string> secret_json = GetClusterObject(
      client, k8s::Secrets(), "Secret", cluster.namespace_name, secret_name, timeout);
  if (!secret_json.ok()) return secret_json.status();
  absl::StatusOr<std::string> key = JwtKeyFromSecret(*secret_json, secret);
  if (!key.ok()) return key.status();
  return ClusterJwtKey{.key = *std::move(key), .secret = secret};
}

}  // namespace tidepool::syncer

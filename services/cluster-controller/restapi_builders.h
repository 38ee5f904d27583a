#pragma once

// Pure builders of a cluster's slurmrestd (restapi_sync.h applies them): the Deployment
// and ClusterIP Service "<cluster>-restapi" on port 6820 (HTTPS). slurmrestd authenticates
// every request by its JWT (rest_auth/jwt) and passes it to slurmctld, so it needs the
// configuration and the munge key but not the JWT key; it runs as the unprivileged user
// the image has for it (slurmrestd refuses root and SlurmUser). It listens on the pod's
// loopback only; the pod's second container, "tls", ends TLS on port 6820 with the
// certificate of the Secret "<cluster>-restapi-tls" (restapi_tls.h) and passes each
// connection on, so no token crosses the network in the clear.

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tidepool/v1/slurm_cluster.pb.h"

namespace tidepool::cluster {

inline constexpr char kSlurmrestdUser[] = "slurmrest";

struct RestApiInputs {
  const v1::SlurmCluster* cluster = nullptr;
  std::string munge_key_secret;
  std::string tls_secret;       // "<cluster>-restapi-tls"
  std::string tls_cert_digest;  // of its tls.crt: a new certificate rolls the pods
};

// spec.restApi.replicas (default 1); InvalidArgument naming the field outside 1..10.
absl::StatusOr<int> RestApiReplicas(const v1::SlurmCluster& cluster);
// replicas and images.restApi, checked; the error names the field.
absl::Status ValidateRestApiSpec(const v1::SlurmCluster& cluster);

// Server-side apply bodies (JSON). Call only with a spec ValidateRestApiSpec accepts.
std::string RestApiDeploymentBody(const RestApiInputs& inputs);
std::string RestApiServiceBody(const v1::SlurmCluster& cluster);

}  // namespace tidepool::cluster

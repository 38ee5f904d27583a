#pragma once

// The addresses of the served SlurmCluster's slurmrestd Service <name>-restapi: by
// in-cluster DNS, or by the Service's ClusterIP for processes outside the cluster network
// that can reach it.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "k8s/client.h"
#include "tidepool/cluster_ref.h"

namespace tidepool::syncer {

// http://<name>-restapi.<namespace>.svc:6820
std::string RestUrlByDns(const api::ClusterRef& cluster);

// http://<spec.clusterIP>:6820 from the Service's JSON: FailedPrecondition when it has no
// ClusterIP (headless "None", or not allocated) or does not serve port 6820.
absl::StatusOr<std::string> RestUrlFromService(absl::string_view service_json);

// Reads the Service <name>-restapi and returns RestUrlFromService of it; errors name it.
absl::StatusOr<std::string> ReadRestUrlFromService(k8s::Client& client,
                                                   const api::ClusterRef& cluster,
                                                   absl::Duration timeout);

}  // namespace tidepool::syncer

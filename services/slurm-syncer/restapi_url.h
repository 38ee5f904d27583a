#pragma once

// Where the served SlurmCluster's slurmrestd is and how it is trusted: its Service
// <name>-restapi by in-cluster DNS over HTTPS, verified against the CA in the cluster's
// TLS Secret <name>-restapi-tls (which the cluster-controller generates); for processes
// outside the cluster network that can reach ClusterIPs, connected at the Service's
// ClusterIP while the certificate is still checked for the DNS name.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "k8s/client.h"
#include "rest_endpoint.h"
#include "tidepool/cluster_ref.h"

namespace tidepool::syncer {

// <name>-restapi.<namespace>.svc, the name the certificate is checked for.
std::string RestApiHost(const api::ClusterRef& cluster);
// https://<name>-restapi.<namespace>.svc:6820
std::string RestUrlByDns(const api::ClusterRef& cluster);

// "<host>:6820:<spec.clusterIP>:6820" from the Service's JSON: FailedPrecondition when it
// has no ClusterIP (headless "None", or not allocated) or does not serve port 6820.
absl::StatusOr<std::string> ConnectToFromService(absl::string_view service_json,
                                                 absl::string_view host);

// The PEM of the Secret's ca.crt: FailedPrecondition naming `secret` ("hpc/x-restapi-tls")
// when the SlurmCluster `cluster_uid` does not control it (a CA is trusted for its owner,
// as the cluster-controller generated it, never for its name alone), or its ca.crt is
// missing, not base64 or holds no certificate.
absl::StatusOr<std::string> CaFromTlsSecret(absl::string_view secret_json, absl::string_view secret,
                                            absl::string_view cluster_uid);

// The endpoint of the cluster's slurmrestd: RestUrlByDns trusting the CA of the TLS Secret
// the SlurmCluster controls, and with `via_service` connected at the Service's ClusterIP.
// Errors name the object.
absl::StatusOr<RestEndpoint> ReadRestEndpoint(k8s::Client& client, const api::ClusterRef& cluster,
                                              bool via_service, absl::Duration timeout);

}  // namespace tidepool::syncer

#pragma once

// slurmrestd's TLS certificate: generated once by the cluster-controller into the owned
// Secret "<cluster>-restapi-tls" (type kubernetes.io/tls: ca.crt, tls.crt,
// tls.key), mounted by the TLS front of every slurmrestd pod and trusted by slurm-syncer,
// which reads ca.crt. A CA of its own signs the server certificate, which names the
// Service "<cluster>-restapi" by every DNS name a client in the cluster may use; the CA's
// key is thrown away once it signed, so nothing else can ever be issued under it. Like the
// auth keys, the private key never reaches a message, log or event. To replace the
// certificate, delete the Secret: a new one is generated, the slurmrestd pods roll (their
// template carries the certificate's digest), and slurm-syncer reads the new CA when the
// old one no longer verifies.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "auth_builders.h"
#include "tidepool/v1/slurm_cluster.pb.h"

namespace tidepool::cluster {

inline constexpr char kTlsCaFile[] = "ca.crt";
inline constexpr char kTlsCertFile[] = "tls.crt";
inline constexpr char kTlsKeyFile[] = "tls.key";

// How long a generated certificate is valid, and how close to its end the controller stops
// using it (the step is then blocked, saying to delete the Secret).
inline constexpr absl::Duration kRestApiTlsValidity = absl::Hours(24 * 3650);
inline constexpr absl::Duration kRestApiTlsRenewBefore = absl::Hours(24 * 30);

struct RestApiTls {
  std::string ca_pem;
  std::string cert_pem;
  std::string key_pem;  // PKCS#8
};

// The names the certificate holds: <cluster>-restapi, .<ns>, .<ns>.svc, .<ns>.svc.<domain>.
std::vector<std::string> RestApiDnsNames(const v1::SlurmCluster& cluster,
                                         absl::string_view cluster_domain);

// A new CA and server certificate (ECDSA P-256), valid from an hour before `now` (clocks
// differ) for kRestApiTlsValidity.
absl::StatusOr<RestApiTls> GenerateRestApiTls(const v1::SlurmCluster& cluster,
                                              absl::string_view cluster_domain, absl::Time now);

// The body to POST for the Secret holding `tls`: owned by the cluster, labelled
// with the slurmrestd component.
std::string RestApiTlsSecretBody(const v1::SlurmCluster& cluster, const RestApiTls& tls);

struct RestApiTlsVerdict {
  SecretVerdict verdict;
  // Of tls.crt when usable: the slurmrestd pods' template carries it, so a new certificate
  // rolls them.
  std::string cert_digest;
};

// "sha256:…" of a certificate, for the pod template.
std::string TlsCertDigest(const std::string& cert_pem);

// An existing "<cluster>-restapi-tls": usable when this SlurmCluster controls it, it holds
// all three files, the certificate chains to its CA, names the Service and is valid for
// longer than kRestApiTlsRenewBefore; otherwise what is wrong and what to do.
RestApiTlsVerdict CheckRestApiTlsSecret(const v1::SlurmCluster& cluster,
                                        absl::string_view secret_json, absl::Time now);

}  // namespace tidepool::cluster

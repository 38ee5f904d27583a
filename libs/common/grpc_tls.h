#pragma once

// A service's gRPC identity for mutual TLS: read from a directory laid out as a
// kubernetes.io/tls Secret with its CA (ca.crt, tls.crt, tls.key), the layout cert-manager
// writes, so the same Secret serves whether Helm, cert-manager or an operator made it.

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace grpc::experimental {
class CertificateProviderInterface;
}  // namespace grpc::experimental

namespace tidepool::common {

struct GrpcTls {
  std::string ca_pem;    // the CA every peer's certificate must chain to
  std::string cert_pem;  // this service's certificate (server and client)
  std::string key_pem;   // its private key
  // Where the three were read ("" when given directly), and how often a service looks there
  // again for a renewed Secret (GrpcTlsWatch).
  std::string dir;
  absl::Duration reload_every = absl::Seconds(30);
  // Where gRPC takes the identity from (grpc_tls_provider.h). A service sets it once (its
  // GrpcTlsInUse) and copies of this identity share it: the server and every channel then
  // take up a renewal together. Unset, each server or channel uses the material as it is.
  std::shared_ptr<grpc::experimental::CertificateProviderInterface> provider;
};

// Reads <dir>/ca.crt, <dir>/tls.crt and <dir>/tls.key. NotFound names a missing file;
// InvalidArgument a file that is not PEM, a key that is not the certificate's, or a
// certificate the CA did not sign;
// PermissionDenied a key that others may read or its group may write (CheckSecretFileMode).
absl::StatusOr<GrpcTls> LoadGrpcTlsDir(const std::string& dir,
                                       absl::Duration reload_every = absl::Seconds(30));

// The PEMs parse, the key is the certificate's, and one of the CAs signed it: material put
// together wrongly fails where it is read, with what is wrong, not at the first call.
// InvalidArgument naming the file as "<dir>/tls.crt" (and ca.crt, tls.key).
absl::Status CheckTlsMaterial(const GrpcTls& tls, const std::string& dir);

// When the (first) certificate of `cert_pem` expires. InvalidArgument when it is not PEM.
absl::StatusOr<absl::Time> CertificateNotAfter(const std::string& cert_pem);

}  // namespace tidepool::common

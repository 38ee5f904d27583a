#pragma once

// Where gRPC's TLS stack gets a service's CA, certificate and key: the Secret's files, read
// again periodically (so a renewed certificate is used without a restart), or the material
// itself when it came from no directory.

#include <memory>

#include "common/grpc_tls.h"
#include "grpcpp/security/tls_certificate_provider.h"

namespace tidepool::common {

// A new provider of `tls`: a file watcher of tls.dir when set (one thread reading the files
// every tls.reload_every), else the material itself.
std::shared_ptr<grpc::experimental::CertificateProviderInterface> MakeCertificateProvider(
    const GrpcTls& tls);

// What servers and channels use: tls.provider when the identity carries one, else a new one.
std::shared_ptr<grpc::experimental::CertificateProviderInterface> CertificateProviderOf(
    const GrpcTls& tls);

}  // namespace tidepool::common

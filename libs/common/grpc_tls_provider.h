#pragma once

// Where gRPC's TLS stack gets a service's CA, certificate and key: the identity's shared
// provider (a service's GrpcTlsInUse, renewed without a restart), or its material as loaded.

#include <memory>

#include "common/grpc_tls.h"
#include "grpcpp/security/tls_certificate_provider.h"

namespace tidepool::common {

// A provider of `tls`'s material as it is now: never re-read (GrpcTlsInUse renews).
std::shared_ptr<grpc::experimental::CertificateProviderInterface> MakeCertificateProvider(
    const GrpcTls& tls);

// What servers and channels use: tls.provider when the identity carries one, else a new one.
std::shared_ptr<grpc::experimental::CertificateProviderInterface> CertificateProviderOf(
    const GrpcTls& tls);

}  // namespace tidepool::common

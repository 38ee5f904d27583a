#include "common/grpc_tls_provider.h"

#include <vector>

namespace tidepool::common {

std::shared_ptr<grpc::experimental::CertificateProviderInterface> MakeCertificateProvider(
    const GrpcTls& tls) {
  return std::make_shared<grpc::experimental::StaticDataCertificateProvider>(
      tls.ca_pem, std::vector<grpc::experimental::IdentityKeyCertPair>{
                      {.private_key = tls.key_pem, .certificate_chain = tls.cert_pem}});
}

std::shared_ptr<grpc::experimental::CertificateProviderInterface> CertificateProviderOf(
    const GrpcTls& tls) {
  return tls.provider != nullptr ? tls.provider : MakeCertificateProvider(tls);
}

}  // namespace tidepool::common

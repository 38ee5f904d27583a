#include "common/grpc_tls_provider.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace tidepool::common {

std::shared_ptr<grpc::experimental::CertificateProviderInterface> MakeCertificateProvider(
    const GrpcTls& tls) {
  if (tls.dir.empty()) {
    return std::make_shared<grpc::experimental::StaticDataCertificateProvider>(
        tls.ca_pem, std::vector<grpc::experimental::IdentityKeyCertPair>{
                        {.private_key = tls.key_pem, .certificate_chain = tls.cert_pem}});
  }
  // gRPC keeps what it has when a read fails or the key is not the certificate's, and checks
  // the files' modification times around its reads, so a swap half-way is read again.
  const auto seconds =
      static_cast<unsigned int>(std::max<int64_t>(1, absl::ToInt64Seconds(tls.reload_every)));
  return std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
      absl::StrCat(tls.dir, "/tls.key"), absl::StrCat(tls.dir, "/tls.crt"),
      absl::StrCat(tls.dir, "/ca.crt"), seconds);
}

std::shared_ptr<grpc::experimental::CertificateProviderInterface> CertificateProviderOf(
    const GrpcTls& tls) {
  return tls.provider != nullptr ? tls.provider : MakeCertificateProvider(tls);
}

}  // namespace tidepool::common

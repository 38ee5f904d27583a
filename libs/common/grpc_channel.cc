#include "common/grpc_channel.h"

#include "absl/status/status.h"
#include "common/grpc_tls_provider.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/tls_certificate_verifier.h"
#include "grpcpp/security/tls_credentials_options.h"
#include "grpcpp/support/channel_arguments.h"

namespace tidepool::common {

absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(const std::string& address,
                                                           const ChannelOptions& options) {
  if (address.empty()) return absl::InvalidArgumentError("no gRPC address (host:port)");
  if (!options.tls.has_value()) {
    return grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  }
  const GrpcTls& tls = *options.tls;
  if (options.server_name.empty()) {
    return absl::InvalidArgumentError("a TLS channel needs the server's name to check");
  }
  if (tls.ca_pem.empty() || tls.cert_pem.empty() || tls.key_pem.empty()) {
    return absl::InvalidArgumentError(
        "mutual TLS needs a CA, a client certificate and its key: one is empty");
  }
  grpc::experimental::TlsChannelCredentialsOptions credentials;
  credentials.set_certificate_provider(CertificateProviderOf(tls));
  credentials.watch_root_certs();
  credentials.watch_identity_key_cert_pairs();
  credentials.set_verify_server_certs(true);
  credentials.set_certificate_verifier(
      std::make_shared<grpc::experimental::HostNameCertificateVerifier>());
  grpc::ChannelArguments arguments;
  arguments.SetSslTargetNameOverride(options.server_name);
  return grpc::CreateCustomChannel(address, grpc::experimental::TlsCredentials(credentials),
                                   arguments);
}

}  // namespace tidepool::common

#include "common/grpc_channel.h"

#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"

namespace tidepool::common {
namespace {

absl::StatusOr<std::string> ReadPem(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read the TLS ", what, " ", path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> TlsCredentials(const ChannelTls& tls) {
  if (tls.cert_path.empty() != tls.key_path.empty()) {
    return absl::InvalidArgumentError(
        "a TLS client certificate and its key go together: set both or neither");
  }
  grpc::SslCredentialsOptions ssl;
  // Empty CA: gRPC's default roots.
  if (!tls.ca_path.empty()) {
    absl::StatusOr<std::string> ca = ReadPem(tls.ca_path, "CA");
    if (!ca.ok()) return ca.status();
    ssl.pem_root_certs = *std::move(ca);
  }
  if (!tls.cert_path.empty()) {
    absl::StatusOr<std::string> cert = ReadPem(tls.cert_path, "certificate");
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key = ReadPem(tls.key_path, "key");
    if (!key.ok()) return key.status();
    ssl.pem_cert_chain = *std::move(cert);
    ssl.pem_private_key = *std::move(key);
  }
  return grpc::SslCredentials(ssl);
}

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(const std::string& address,
                                                           const ChannelOptions& options) {
  if (address.empty()) return absl::InvalidArgumentError("no gRPC address (host:port)");
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (options.tls.has_value()) {
    absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> tls = TlsCredentials(*options.tls);
    if (!tls.ok()) return tls.status();
    credentials = *std::move(tls);
  }
  return grpc::CreateChannel(address, credentials);
}

}  // namespace tidepool::common

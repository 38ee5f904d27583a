#include "common/grpc_server.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/grpc_tls_provider.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/security/tls_credentials_options.h"
#include "grpcpp/server_builder.h"

namespace tidepool::common {
namespace {

constexpr int kMaxMessageBytes = 64 * 1024 * 1024;

std::string GrpcListenAddress(const std::string& address, uint16_t port) {
  if (absl::StrContains(address, ':')) return absl::StrCat("[", address, "]:", port);
  return absl::StrCat(address, ":", port);
}

void InitGrpcPluginsOnce() {
  static const bool initialized = [] {
    grpc::EnableDefaultHealthCheckService(true);
    grpc::reflection::InitProtoReflectionServerBuilderPlugin();
    return true;
  }();
  (void)initialized;
}

std::shared_ptr<grpc::ServerCredentials> MutualTlsCredentials(const GrpcTls& tls) {
  grpc::experimental::TlsServerCredentialsOptions options(CertificateProviderOf(tls));
  options.watch_root_certs();
  options.watch_identity_key_cert_pairs();
  options.set_cert_request_type(GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  return grpc::experimental::TlsServerCredentials(options);
}

std::shared_ptr<grpc::ServerCredentials> Credentials(const ServerSecurity& security) {
  if (!security.tls.has_value()) return grpc::InsecureServerCredentials();
  return MutualTlsCredentials(*security.tls);
}

}  // namespace

absl::StatusOr<std::unique_ptr<GrpcServer>> GrpcServer::Start(
    const std::string& address, uint16_t port, const std::vector<grpc::Service*>& services,
    const ServerSecurity& security) {
  InitGrpcPluginsOnce();
  const std::string listen = GrpcListenAddress(address, port);
  grpc::ServerBuilder builder;
  int selected_port = 0;
  // SO_REUSEPORT would let a second process share the port silently; a busy port must fail.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  // Render requests for 10,000 nodes with their labels exceed gRPC's 4 MiB default.
  builder.SetMaxReceiveMessageSize(kMaxMessageBytes);
  builder.AddListeningPort(listen, Credentials(security), &selected_port);
  for (grpc::Service* service : services) builder.RegisterService(service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || selected_port == 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot serve gRPC on ", listen, " (is another process using the port?)"));
  }
  auto result = std::unique_ptr<GrpcServer>(
      new GrpcServer(std::move(server), static_cast<uint16_t>(selected_port)));
  result->SetServing(true);
  return result;
}

GrpcServer::~GrpcServer() { Shutdown(absl::ZeroDuration()); }

void GrpcServer::SetServing(bool serving) {
  if (grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService()) {
    health->SetServingStatus(serving);
  }
}

void GrpcServer::Shutdown(absl::Duration grace) {
  if (shut_down_) return;
  shut_down_ = true;
  SetServing(false);
  server_->Shutdown(absl::ToChronoTime(absl::Now() + grace));
  server_->Wait();
}

}  // namespace tidepool::common

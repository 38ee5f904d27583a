#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/grpc_tls.h"
#include "grpcpp/server.h"

namespace tidepool::common {

// How a server authenticates its callers.
struct ServerSecurity {
  // Unset: plaintext. Set: mutual TLS; a caller must present a certificate of this CA (what
  // it may call is each service's MethodAuthorizer's to say).
  std::optional<GrpcTls> tls;
};

// A gRPC server with the standard health-checking service and server reflection.
// Shuts down (bounded by the given grace period) when destroyed or on Shutdown().
class GrpcServer {
 public:
  static absl::StatusOr<std::unique_ptr<GrpcServer>> Start(
      const std::string& address, uint16_t port, const std::vector<grpc::Service*>& services,
      const ServerSecurity& security = {});

  ~GrpcServer();
  GrpcServer(const GrpcServer&) = delete;
  GrpcServer& operator=(const GrpcServer&) = delete;

  // Health reports SERVING or NOT_SERVING for the server as a whole ("").
  void SetServing(bool serving);
  // Reports NOT_SERVING, then lets in-flight calls finish for at most `grace`.
  void Shutdown(absl::Duration grace);

  uint16_t port() const { return port_; }

 private:
  explicit GrpcServer(std::unique_ptr<grpc::Server> server, uint16_t port)
      : server_(std::move(server)), port_(port) {}

  std::unique_ptr<grpc::Server> server_;
  uint16_t port_;
  bool shut_down_ = false;
};

}  // namespace tidepool::common

#pragma once

// The one way a Tidepool service opens a gRPC channel to another (nodeset-controller,
// cluster-controller and pod-scheduler to slurm-syncer, cluster-controller to
// config-renderer), so every call site gets mutual TLS the same way.

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "common/grpc_tls.h"
#include "grpcpp/channel.h"

namespace tidepool::common {

struct ChannelOptions {
  // Unset: a plaintext channel. Set: mutual TLS with this identity, trusting only its CA.
  std::optional<GrpcTls> tls;
  // With TLS, the name the server's certificate must carry (a DNS SAN), whatever the
  // address: a caller checks it talks to "slurm-syncer", not to whoever holds the address.
  std::string server_name;
};

// A channel to `address` (host:port). InvalidArgument for an empty address, or TLS without
// a server name, a certificate or its key. The channel connects lazily: an unreachable
// server is not an error here.
absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(const std::string& address,
                                                           const ChannelOptions& options = {});

}  // namespace tidepool::common

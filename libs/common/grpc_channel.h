#pragma once

// The one way a Tidepool service opens a gRPC channel to another (nodeset-controller and
// cluster-controller to slurm-syncer, cluster-controller to config-renderer), so moving
// every service to TLS is a change of options, not of call sites.

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/channel.h"

namespace tidepool::common {

// PEM files for a TLS channel: the CA that signed the server's certificate, and the
// client's own certificate and key for mutual TLS (both or neither).
struct ChannelTls {
  std::string ca_path;
  std::string cert_path;
  std::string key_path;
};

struct ChannelOptions {
  // Unset: an insecure channel (today's deployments, inside the cluster network).
  std::optional<ChannelTls> tls;
};

// A channel to `address` (host:port). InvalidArgument for an empty address or a client
// certificate without its key (or the reverse); NotFound/PermissionDenied when a TLS file
// cannot be read. The channel connects lazily: an unreachable server is not an error here.
absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(const std::string& address,
                                                           const ChannelOptions& options = {});

}  // namespace tidepool::common

#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "common/grpc_authz.h"
#include "common/grpc_channel.h"
#include "common/grpc_tls.h"
#include "common/heap_tuning.h"
#include "common/http_server.h"
#include "common/service_flags.h"
#include "grpcpp/impl/codegen/service_type.h"
#include "prometheus/registry.h"

namespace tidepool::common {

// What a service's setup function gets to wire itself into the process.
class ServiceContext {
 public:
  ServiceContext(std::string name, ServiceOptions options,
                 std::optional<GrpcTls> grpc_tls = std::nullopt);

  const std::string& name() const { return name_; }
  const ServiceOptions& options() const { return options_; }
  // This service's gRPC identity; unset when gRPC is plaintext.
  const std::optional<GrpcTls>& grpc_tls() const { return grpc_tls_; }
  // How to open a channel to the service named `server` ("slurm-syncer"): with this
  // service's identity, checking the server's, when gRPC uses TLS.
  ChannelOptions ChannelTo(std::string server) const;
  // Admits only `grants`' callers to each method when gRPC uses TLS; everyone otherwise.
  MethodAuthorizer Authorizer(std::vector<MethodGrant> grants) const;
  prometheus::Registry& metrics() { return *metrics_; }
  std::shared_ptr<prometheus::Registry> shared_metrics() { return metrics_; }

  // The process keeps `service` alive and serves it on the gRPC port.
  grpc::Service* AddGrpcService(std::unique_ptr<grpc::Service> service);
  // /readyz fails while any check fails; the message names the check.
  void AddReadinessCheck(std::string name, ReadinessCheck check);
  // Runs when shutdown begins, before the gRPC server waits for calls in flight: ends
  // long-lived streams (watches) so they do not hold the shutdown for its whole grace.
  void OnStopServing(std::function<void()> end_streams);
  // Runs (in reverse order of registration) after the servers stop taking requests.
  void OnShutdown(std::function<void()> stop);

  std::vector<grpc::Service*> grpc_services() const;
  absl::Status CheckReadiness() const;
  void RunStopServingHooks();
  void RunShutdownHooks();

 private:
  std::string name_;
  ServiceOptions options_;
  std::optional<GrpcTls> grpc_tls_;
  std::shared_ptr<prometheus::Registry> metrics_;
  std::vector<std::unique_ptr<grpc::Service>> services_;
  std::vector<std::pair<std::string, ReadinessCheck>> readiness_checks_;
  std::vector<std::function<void()>> stop_serving_hooks_;
  std::vector<std::function<void()>> shutdown_hooks_;
};

struct ServiceDefinition {
  // Binary and log name, e.g. "config-renderer".
  std::string name;
  // One line for --help.
  std::string summary;
  // Registers the service's gRPC services, readiness checks and background work.
  std::function<absl::Status(ServiceContext&)> setup;
  // Optional one-shot commands: called with the positional arguments when there are any;
  // returns the exit code, or nullopt when the arguments name no command.
  std::function<std::optional<int>(const std::vector<std::string>&)> command;
  // What the service does with heap it frees (heap_tuning.h): returned by default.
  HeapPolicy heap;
};

// The whole life of a service process: flags, logging, servers, SIGTERM, bounded shutdown.
// Returns the process exit code: 0 after a clean shutdown, 1 when it could not start,
// 2 on invalid flags.
int RunService(int argc, char** argv, const ServiceDefinition& definition);

}  // namespace tidepool::common

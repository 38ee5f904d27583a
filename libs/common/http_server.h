#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "prometheus/registry.h"

struct mg_context;
struct mg_connection;

namespace tidepool::common {

// Returns OK when the process can take traffic, otherwise why not (served on /readyz).
using ReadinessCheck = std::function<absl::Status()>;

// The operational HTTP endpoint of a service: /metrics, /healthz, /readyz.
// Stops serving when destroyed.
class HttpServer {
 public:
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(
      const std::string& address, uint16_t port, std::shared_ptr<prometheus::Registry> registry,
      ReadinessCheck readiness);

  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  uint16_t port() const { return port_; }

 private:
  HttpServer(std::shared_ptr<prometheus::Registry> registry, ReadinessCheck readiness);

  static int HandleMetrics(mg_connection* connection, void* self);
  static int HandleHealthz(mg_connection* connection, void* self);
  static int HandleReadyz(mg_connection* connection, void* self);

  std::shared_ptr<prometheus::Registry> registry_;
  ReadinessCheck readiness_;
  mg_context* context_ = nullptr;
  uint16_t port_ = 0;
};

}  // namespace tidepool::common

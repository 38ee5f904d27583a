#include "common/http_server.h"

#define MG_EXPERIMENTAL_INTERFACES 1
#include <civetweb.h>

#include <array>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/metrics.h"

namespace tidepool::common {
namespace {

constexpr char kMetricsContentType[] = "text/plain; version=0.0.4; charset=utf-8";
constexpr char kTextContentType[] = "text/plain; charset=utf-8";

void InitCivetwebOnce() {
  static const bool initialized = [] {
    mg_init_library(0);
    return true;
  }();
  (void)initialized;
}

std::string ListeningSpec(const std::string& address, uint16_t port) {
  if (absl::StrContains(address, ':')) return absl::StrCat("[", address, "]:", port);
  return absl::StrCat(address, ":", port);
}

int Reply(mg_connection* connection, int status, const char* content_type,
          const std::string& body) {
  mg_printf(connection,
            "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
            "Cache-Control: no-store\r\nConnection: close\r\n\r\n",
            status, mg_get_response_code_text(connection, status), content_type, body.size());
  mg_write(connection, body.data(), body.size());
  return status;
}

// civetweb logs to stderr by default; its messages surface through Start's error instead.
int DiscardLogMessage(const mg_connection*, const char*) { return 1; }

}  // namespace

HttpServer::HttpServer(std::shared_ptr<prometheus::Registry> registry, ReadinessCheck readiness)
    : registry_(std::move(registry)), readiness_(std::move(readiness)) {}

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(
    const std::string& address, uint16_t port, std::shared_ptr<prometheus::Registry> registry,
    ReadinessCheck readiness) {
  InitCivetwebOnce();
  std::unique_ptr<HttpServer> server(new HttpServer(std::move(registry), std::move(readiness)));
  const std::string listening = ListeningSpec(address, port);
  const char* options[] = {"listening_ports",    listening.c_str(), "num_threads", "4",
                           "request_timeout_ms", "10000",           nullptr};
  mg_callbacks callbacks{};
  callbacks.log_message = DiscardLogMessage;
  mg_init_data init{};
  init.callbacks = &callbacks;
  init.user_data = server.get();
  init.configuration_options = options;
  std::array<char, 256> error_text{};
  unsigned error_code = 0;
  mg_error_data error{};
  error.code = &error_code;
  error.text = error_text.data();
  error.text_buffer_size = error_text.size();
  server->context_ = mg_start2(&init, &error);
  if (server->context_ == nullptr) {
    return absl::UnavailableError(absl::StrCat("cannot serve HTTP on ", address, ":", port, ": ",
                                               error_text.data(),
                                               " (is another process using the port?)"));
  }
  server->port_ = port;
  mg_set_request_handler(server->context_, "/metrics$", &HttpServer::HandleMetrics, server.get());
  mg_set_request_handler(server->context_, "/healthz$", &HttpServer::HandleHealthz, server.get());
  mg_set_request_handler(server->context_, "/readyz$", &HttpServer::HandleReadyz, server.get());
  return server;
}

HttpServer::~HttpServer() {
  if (context_ != nullptr) mg_stop(context_);
}

int HttpServer::HandleMetrics(mg_connection* connection, void* self) {
  auto* server = static_cast<HttpServer*>(self);
  return Reply(connection, 200, kMetricsContentType, SerializeMetrics(*server->registry_));
}

int HttpServer::HandleHealthz(mg_connection* connection, void*) {
  return Reply(connection, 200, kTextContentType, "ok\n");
}

int HttpServer::HandleReadyz(mg_connection* connection, void* self) {
  auto* server = static_cast<HttpServer*>(self);
  const absl::Status ready = server->readiness_ ? server->readiness_() : absl::OkStatus();
  if (ready.ok()) return Reply(connection, 200, kTextContentType, "ok\n");
  return Reply(connection, 503, kTextContentType,
               absl::StrCat("not ready: ", ready.message(), "\n"));
}

}  // namespace tidepool::common

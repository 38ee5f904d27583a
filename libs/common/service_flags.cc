#include "common/service_flags.h"

#include <arpa/inet.h>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"

ABSL_FLAG(std::string, listen_address, "0.0.0.0",
          "IPv4 or IPv6 address the gRPC and HTTP servers listen on");
ABSL_FLAG(int32_t, grpc_port, 50051, "TCP port of the gRPC server (1-65535)");
ABSL_FLAG(int32_t, http_port, 8080,
          "TCP port of the HTTP server for /metrics, /healthz and /readyz (1-65535)");
ABSL_FLAG(std::string, log_level, "info", "Lowest level logged: debug, info, warn or error");
ABSL_FLAG(absl::Duration, shutdown_timeout, absl::Seconds(10),
          "How long in-flight work may take to finish after SIGTERM (0s-300s)");
ABSL_FLAG(std::string, grpc_tls_dir, "",
          "Directory with ca.crt, tls.crt and tls.key (a kubernetes.io/tls Secret with its CA): "
          "gRPC serves and calls with mutual TLS, and each method admits only the services the "
          "design lets call it. Empty: plaintext gRPC that any process reaching the port may "
          "call");
ABSL_FLAG(absl::Duration, grpc_tls_reload_interval, absl::Seconds(30),
          "How often the files of --grpc_tls_dir are read again, so a renewed certificate (a "
          "Secret cert-manager or Helm rewrote) is used for new connections without a restart "
          "(whole seconds, 1s-1h)");

namespace tidepool::common {
namespace {

absl::StatusOr<uint16_t> ValidatePort(absl::string_view flag, int64_t value) {
  if (value < 1 || value > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, "=", value, " is not a TCP port; use 1-65535"));
  }
  return static_cast<uint16_t>(value);
}

bool IsIpAddress(const std::string& text) {
  unsigned char buffer[sizeof(struct in6_addr)];
  return inet_pton(AF_INET, text.c_str(), buffer) == 1 ||
         inet_pton(AF_INET6, text.c_str(), buffer) == 1;
}

}  // namespace

absl::StatusOr<ServiceOptions> ValidateServiceFlags(const RawServiceFlags& raw) {
  ServiceOptions options;
  if (!IsIpAddress(raw.listen_address)) {
    return absl::InvalidArgumentError(absl::StrCat("--listen_address=\"", raw.listen_address,
                                                   "\" is not an IPv4 or IPv6 address"));
  }
  options.listen_address = raw.listen_address;
  absl::StatusOr<uint16_t> grpc_port = ValidatePort("grpc_port", raw.grpc_port);
  if (!grpc_port.ok()) return grpc_port.status();
  absl::StatusOr<uint16_t> http_port = ValidatePort("http_port", raw.http_port);
  if (!http_port.ok()) return http_port.status();
  if (*grpc_port == *http_port) {
    return absl::InvalidArgumentError(
        absl::StrCat("--grpc_port and --http_port are both ", *grpc_port, "; they must differ"));
  }
  options.grpc_port = *grpc_port;
  options.http_port = *http_port;
  absl::StatusOr<LogLevel> level = ParseLogLevel(raw.log_level);
  if (!level.ok())
    return absl::InvalidArgumentError(absl::StrCat("--log_level: ", level.status().message()));
  options.log_level = *level;
  if (raw.shutdown_timeout < absl::ZeroDuration() || raw.shutdown_timeout > absl::Seconds(300)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--shutdown_timeout=", absl::FormatDuration(raw.shutdown_timeout),
                     " is out of range; use 0s to 300s"));
  }
  options.shutdown_timeout = raw.shutdown_timeout;
  if (!raw.grpc_tls_dir.empty() && raw.grpc_tls_dir.front() != '/') {
    return absl::InvalidArgumentError(
        absl::StrCat("--grpc_tls_dir=\"", raw.grpc_tls_dir, "\" is not an absolute path"));
  }
  options.grpc_tls_dir = raw.grpc_tls_dir;
  const absl::Duration reload = raw.grpc_tls_reload_interval;
  if (reload < absl::Seconds(1) || reload > absl::Hours(1) ||
      reload != absl::Trunc(reload, absl::Seconds(1))) {
    return absl::InvalidArgumentError(
        absl::StrCat("--grpc_tls_reload_interval=", absl::FormatDuration(reload),
                     " is not accepted; use whole seconds from 1s to 1h"));
  }
  options.grpc_tls_reload_interval = reload;
  return options;
}

absl::StatusOr<ServiceOptions> ReadServiceFlags() {
  return ValidateServiceFlags(RawServiceFlags{
      .listen_address = absl::GetFlag(FLAGS_listen_address),
      .grpc_port = absl::GetFlag(FLAGS_grpc_port),
      .http_port = absl::GetFlag(FLAGS_http_port),
      .log_level = absl::GetFlag(FLAGS_log_level),
      .shutdown_timeout = absl::GetFlag(FLAGS_shutdown_timeout),
      .grpc_tls_dir = absl::GetFlag(FLAGS_grpc_tls_dir),
      .grpc_tls_reload_interval = absl::GetFlag(FLAGS_grpc_tls_reload_interval),
  });
}

}  // namespace tidepool::common

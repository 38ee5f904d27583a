#pragma once

#include <cstdint>
#include <string>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/log.h"

ABSL_DECLARE_FLAG(std::string, listen_address);
ABSL_DECLARE_FLAG(int32_t, grpc_port);
ABSL_DECLARE_FLAG(int32_t, http_port);
ABSL_DECLARE_FLAG(std::string, log_level);
ABSL_DECLARE_FLAG(absl::Duration, shutdown_timeout);
ABSL_DECLARE_FLAG(std::string, grpc_tls_dir);
ABSL_DECLARE_FLAG(absl::Duration, grpc_tls_reload_interval);

namespace tidepool::common {

// The flags every Tidepool service accepts, validated.
struct ServiceOptions {
  std::string listen_address;
  uint16_t grpc_port = 0;
  uint16_t http_port = 0;
  LogLevel log_level = LogLevel::kInfo;
  absl::Duration shutdown_timeout;
  // ca.crt, tls.crt and tls.key of this service's gRPC identity ("" = plaintext gRPC).
  std::string grpc_tls_dir;
  // How often the files of grpc_tls_dir are read again (a renewed Secret).
  absl::Duration grpc_tls_reload_interval = absl::Seconds(30);
};

struct RawServiceFlags {
  std::string listen_address;
  int64_t grpc_port = 0;
  int64_t http_port = 0;
  std::string log_level;
  absl::Duration shutdown_timeout;
  std::string grpc_tls_dir;
  absl::Duration grpc_tls_reload_interval = absl::Seconds(30);
};

// Checks raw flag values; the error names the flag and says what is accepted.
absl::StatusOr<ServiceOptions> ValidateServiceFlags(const RawServiceFlags& raw);

// Reads the process's parsed flags and validates them.
absl::StatusOr<ServiceOptions> ReadServiceFlags();

}  // namespace tidepool::common

#include "common/service_flags.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::common {
namespace {

RawServiceFlags ValidFlags() {
  return RawServiceFlags{.listen_address = "127.0.0.1",
                         .grpc_port = 50051,
                         .http_port = 8080,
                         .log_level = "info",
                         .shutdown_timeout = absl::Seconds(10)};
}

TEST_CASE("ValidateServiceFlags accepts sensible values") {
  auto options = ValidateServiceFlags(ValidFlags());
  REQUIRE(options.ok());
  CHECK(options->grpc_port == 50051);
  CHECK(options->http_port == 8080);
  CHECK(options->log_level == LogLevel::kInfo);
  CHECK(options->grpc_tls_reload_interval == absl::Seconds(30));
  RawServiceFlags reload = ValidFlags();
  reload.grpc_tls_reload_interval = absl::Hours(1);
  CHECK(ValidateServiceFlags(reload)->grpc_tls_reload_interval == absl::Hours(1));
  RawServiceFlags ipv6 = ValidFlags();
  ipv6.listen_address = "::1";
  CHECK(ValidateServiceFlags(ipv6).ok());
}

TEST_CASE("ValidateServiceFlags names the flag that is wrong") {
  RawServiceFlags flags = ValidFlags();
  SECTION("a relative gRPC TLS directory") {
    flags.grpc_tls_dir = "tls";
    CHECK(ValidateServiceFlags(flags).status().message() ==
          "--grpc_tls_dir=\"tls\" is not an absolute path");
  }
  SECTION("a reload interval that is not whole seconds from 1s to 1h") {
    for (const absl::Duration wrong :
         {absl::ZeroDuration(), absl::Milliseconds(1500), absl::Hours(2), absl::Seconds(-5)}) {
      flags.grpc_tls_reload_interval = wrong;
      CHECK(ValidateServiceFlags(flags).status().message() ==
            "--grpc_tls_reload_interval=" + absl::FormatDuration(wrong) +
                " is not accepted; use whole seconds from 1s to 1h");
    }
  }
  SECTION("port out of range") {
    flags.grpc_port = 70000;
    CHECK(ValidateServiceFlags(flags).status().message() ==
          "--grpc_port=70000 is not a TCP port; use 1-65535");
  }
  SECTION("port zero") {
    flags.http_port = 0;
    CHECK(ValidateServiceFlags(flags).status().message() ==
          "--http_port=0 is not a TCP port; use 1-65535");
  }
  SECTION("same port twice") {
    flags.http_port = flags.grpc_port;
    CHECK(ValidateServiceFlags(flags).status().message() ==
          "--grpc_port and --http_port are both 50051; they must differ");
  }
  SECTION("address that is a host name") {
    flags.listen_address = "localhost";
    CHECK(ValidateServiceFlags(flags).status().message() ==
          "--listen_address=\"localhost\" is not an IPv4 or IPv6 address");
  }
  SECTION("log level") {
    flags.log_level = "loud";
    CHECK(ValidateServiceFlags(flags).status().message() ==
          "--log_level: log level \"loud\" is not one of debug, info, warn, error");
  }
  SECTION("shutdown timeout") {
    flags.shutdown_timeout = absl::Minutes(10);
    CHECK(ValidateServiceFlags(flags).status().message() ==
          "--shutdown_timeout=10m is out of range; use 0s to 300s");
  }
  CHECK(ValidateServiceFlags(flags).status().code() == absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tidepool::common

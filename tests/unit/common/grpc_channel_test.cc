#include "common/grpc_channel.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::common {
namespace {

TEST_CASE("MakeChannel opens a plaintext channel without TLS options") {
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = MakeChannel("127.0.0.1:1");
  REQUIRE(channel.ok());
  CHECK(*channel != nullptr);
}

TEST_CASE("MakeChannel refuses an empty address") {
  CHECK(absl::IsInvalidArgument(MakeChannel("").status()));
}

TEST_CASE("MakeChannel with TLS needs the server's name and the whole identity") {
  const GrpcTls whole{.ca_pem = "ca", .cert_pem = "cert", .key_pem = "key"};
  CHECK(absl::IsInvalidArgument(MakeChannel("127.0.0.1:1", {.tls = whole}).status()));
  GrpcTls no_key = whole;
  no_key.key_pem.clear();
  CHECK(absl::IsInvalidArgument(
      MakeChannel("127.0.0.1:1", {.tls = no_key, .server_name = "slurm-syncer"}).status()));
}

}  // namespace
}  // namespace tidepool::common

#include "common/grpc_channel.h"

#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <fstream>

namespace tidepool::common {
namespace {

TEST_CASE("MakeChannel opens an insecure channel without TLS options") {
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = MakeChannel("127.0.0.1:1");
  REQUIRE(channel.ok());
  CHECK(*channel != nullptr);
}

TEST_CASE("MakeChannel refuses an empty address") {
  CHECK(absl::IsInvalidArgument(MakeChannel("").status()));
}

TEST_CASE("MakeChannel with TLS reads its PEM files and says which one is missing") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  const std::filesystem::path ca = dir / "grpc_channel_test_ca.pem";
  std::ofstream(ca) << "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n";

  CHECK(MakeChannel("127.0.0.1:1", {.tls = ChannelTls{.ca_path = ca.string()}}).ok());

  absl::Status missing =
      MakeChannel("127.0.0.1:1", {.tls = ChannelTls{.ca_path = (dir / "no-such-ca.pem").string()}})
          .status();
  CHECK(absl::IsNotFound(missing));
  CHECK(missing.message().find("no-such-ca.pem") != absl::string_view::npos);

  // A client certificate without its key cannot make mutual TLS.
  CHECK(absl::IsInvalidArgument(
      MakeChannel("127.0.0.1:1", {.tls = ChannelTls{.cert_path = ca.string()}}).status()));
  std::filesystem::remove(ca);
}

}  // namespace
}  // namespace tidepool::common

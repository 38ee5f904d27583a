// Mutual TLS and per-method authorisation end to end on loopback: certificates from
// tools/grpc-certs/make, gRPC's own TLS stack and authorization engine.

#include <sys/stat.h>

#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_join.h"
#include "common/grpc_authz.h"
#include "common/grpc_channel.h"
#include "common/grpc_server.h"
#include "common/secret_file.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "support/grpc_certs.h"
#include "support/ports.h"
#include "tidepool/v1/renderer.grpc.pb.h"

namespace tidepool::common {
namespace {

using ::grpc::health::v1::Health;
using ::tidepool::testing::GrpcIdentity;
using ::tidepool::testing::MakeGrpcCertificates;

constexpr char kRender[] = "/tidepool.v1.ConfigRenderer/Render";
constexpr char kValidate[] = "/tidepool.v1.ConfigRenderer/Validate";

// Answers Render with the caller's identities (so the test sees what the server saw), after
// asking `authorizer` as every Tidepool handler does; Validate is granted to nobody.
class EchoCallerRenderer final : public v1::ConfigRenderer::Service {
 public:
  explicit EchoCallerRenderer(bool enforce)
      : authorizer_({{.method = kRender, .callers = {"cluster-controller"}},
                     {.method = kValidate, .callers = {}}},
                    enforce) {}

  grpc::Status Render(grpc::ServerContext* context, const v1::RenderRequest*,
                      v1::RenderResponse*) override {
    if (grpc::Status denied = authorizer_.Check(*context, kRender); !denied.ok()) return denied;
    return {grpc::StatusCode::ABORTED, absl::StrJoin(PeerIdentities(*context), ",")};
  }
  grpc::Status Validate(grpc::ServerContext* context, const v1::RenderRequest*,
                        v1::ValidateResponse*) override {
    if (grpc::Status denied = authorizer_.Check(*context, kValidate); !denied.ok()) return denied;
    return {grpc::StatusCode::ABORTED, "reached"};
  }

 private:
  MethodAuthorizer authorizer_;
};

struct Certificates {
  std::string good;   // one CA: config-renderer, cluster-controller, pod-scheduler
  std::string other;  // another CA, with its own "cluster-controller"
};

const Certificates& TestCertificates() {
  static const Certificates certificates = [] {
    const std::filesystem::path base =
        std::filesystem::temp_directory_path() / ("grpc_mutual_tls_" + std::to_string(getpid()));
    Certificates made{.good = (base / "good").string(), .other = (base / "other").string()};
    REQUIRE(
        MakeGrpcCertificates(made.good, {"config-renderer", "cluster-controller", "pod-scheduler"})
            .ok());
    REQUIRE(MakeGrpcCertificates(made.other, {"cluster-controller"}).ok());
    return made;
  }();
  return certificates;
}

GrpcTls Identity(const std::string& dir, const std::string& name) {
  absl::StatusOr<GrpcTls> tls = GrpcIdentity(dir, name);
  REQUIRE(tls.ok());
  return *tls;
}

struct Call {
  grpc::StatusCode code;
  std::string message;
};

Call CallRender(uint16_t port, const ChannelOptions& options) {
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      MakeChannel("127.0.0.1:" + std::to_string(port), options);
  REQUIRE(channel.ok());
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  v1::RenderResponse response;
  const grpc::Status status =
      v1::ConfigRenderer::NewStub(*channel)->Render(&context, {}, &response);
  return {status.error_code(), status.error_message()};
}

grpc::StatusCode CallValidate(uint16_t port, const ChannelOptions& options) {
  auto channel = MakeChannel("127.0.0.1:" + std::to_string(port), options);
  REQUIRE(channel.ok());
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  v1::ValidateResponse response;
  return v1::ConfigRenderer::NewStub(*channel)->Validate(&context, {}, &response).error_code();
}

grpc::StatusCode CallHealth(uint16_t port, const ChannelOptions& options) {
  auto channel = MakeChannel("127.0.0.1:" + std::to_string(port), options);
  REQUIRE(channel.ok());
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  grpc::health::v1::HealthCheckResponse response;
  return Health::NewStub(*channel)->Check(&context, {}, &response).error_code();
}

TEST_CASE("With mutual TLS a method admits only the callers granted it") {
  const Certificates& certs = TestCertificates();
  EchoCallerRenderer renderer(/*enforce=*/true);
  const uint16_t port = testing::FreeLoopbackPort().value();
  auto server = GrpcServer::Start("127.0.0.1", port, {&renderer},
                                  {.tls = Identity(certs.good, "config-renderer")});
  REQUIRE(server.ok());
  const auto as = [&](const std::string& dir, const std::string& who) {
    return ChannelOptions{.tls = Identity(dir, who), .server_name = "config-renderer"};
  };

  SECTION("the granted caller reaches the method, which sees its identity") {
    const Call call = CallRender(port, as(certs.good, "cluster-controller"));
    CHECK(call.code == grpc::StatusCode::ABORTED);
    CHECK(call.message == "cluster-controller");
  }
  SECTION("another caller of the same CA is refused, but may check health") {
    const Call call = CallRender(port, as(certs.good, "pod-scheduler"));
    CHECK(call.code == grpc::StatusCode::PERMISSION_DENIED);
    CHECK(call.message ==
          "pod-scheduler may not call /tidepool.v1.ConfigRenderer/Render (allowed: "
          "cluster-controller)");
    CHECK(CallHealth(port, as(certs.good, "pod-scheduler")) == grpc::StatusCode::OK);
  }
  SECTION("a method granted to nobody admits nobody") {
    CHECK(CallValidate(port, as(certs.good, "cluster-controller")) ==
          grpc::StatusCode::PERMISSION_DENIED);
  }
  SECTION("the right name from another CA does not get through the handshake") {
    CHECK(CallRender(port, as(certs.other, "cluster-controller")).code ==
          grpc::StatusCode::UNAVAILABLE);
  }
  SECTION("a plaintext caller does not get through") {
    CHECK(CallRender(port, {}).code == grpc::StatusCode::UNAVAILABLE);
    CHECK(CallHealth(port, {}) == grpc::StatusCode::UNAVAILABLE);
  }
  SECTION("a caller that expects another server refuses this one") {
    ChannelOptions wrong_server = as(certs.good, "cluster-controller");
    wrong_server.server_name = "slurm-syncer";
    CHECK(CallRender(port, wrong_server).code == grpc::StatusCode::UNAVAILABLE);
  }
}

TEST_CASE("Without TLS every caller reaches every method and has no identity") {
  EchoCallerRenderer renderer(/*enforce=*/false);
  const uint16_t port = testing::FreeLoopbackPort().value();
  auto server = GrpcServer::Start("127.0.0.1", port, {&renderer});
  REQUIRE(server.ok());
  const Call call = CallRender(port, {});
  CHECK(call.code == grpc::StatusCode::ABORTED);
  CHECK(call.message.empty());
  CHECK(CallValidate(port, {}) == grpc::StatusCode::ABORTED);
}

TEST_CASE("LoadGrpcTlsDir reads a Secret's layout and refuses a key others may read") {
  const Certificates& certs = TestCertificates();
  const std::string dir = certs.good + "/pod-scheduler";
  const std::string key = dir + "/tls.key";
  REQUIRE(LoadGrpcTlsDir(dir).ok());

  for (const mode_t allowed : {0600, 0400, 0640, 0440}) {
    REQUIRE(chmod(key.c_str(), allowed) == 0);
    CHECK(CheckSecretFileMode(key, "gRPC TLS key").ok());
  }
  for (const mode_t wrong : {0644, 0604, 0660, 0606, 0610}) {
    REQUIRE(chmod(key.c_str(), wrong) == 0);
    const absl::Status refused = LoadGrpcTlsDir(dir).status();
    CHECK(absl::IsPermissionDenied(refused));
    CHECK(refused.message().find("tls.key has mode 0") != absl::string_view::npos);
  }
  REQUIRE(chmod(key.c_str(), 0600) == 0);

  // A Secret put together from two identities, or with another CA: refused, saying which.
  const std::string mixed = certs.good + "/mixed";
  std::filesystem::create_directories(mixed);
  std::filesystem::copy_file(dir + "/ca.crt", mixed + "/ca.crt");
  std::filesystem::copy_file(dir + "/tls.crt", mixed + "/tls.crt");
  std::filesystem::copy_file(certs.good + "/cluster-controller/tls.key", mixed + "/tls.key");
  CHECK(LoadGrpcTlsDir(mixed).status().message() ==
        mixed + "/tls.key is not the key of " + mixed + "/tls.crt");
  std::filesystem::copy_file(certs.good + "/pod-scheduler/tls.key", mixed + "/tls.key",
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(certs.other + "/cluster-controller/ca.crt", mixed + "/ca.crt",
                             std::filesystem::copy_options::overwrite_existing);
  CHECK(LoadGrpcTlsDir(mixed).status().message() ==
        mixed + "/tls.crt is not signed by " + mixed + "/ca.crt");
  // A bundle holding the signing CA among others is fine.
  std::ofstream(mixed + "/ca.crt", std::ios::app) << std::ifstream(certs.good + "/ca.crt").rdbuf();
  CHECK(LoadGrpcTlsDir(mixed).ok());

  const absl::Status missing = LoadGrpcTlsDir(certs.good + "/no-such-service").status();
  CHECK(absl::IsNotFound(missing));
  CHECK(missing.message().find("no-such-service/ca.crt") != absl::string_view::npos);
}

}  // namespace
}  // namespace tidepool::common

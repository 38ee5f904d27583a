#include "common/grpc_server.h"

#include <catch2/catch_test_macros.hpp>

#include "common/info_service.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/create_channel.h"
#include "support/ports.h"

namespace tidepool::common {
namespace {

using ::grpc::health::v1::Health;
using ::grpc::health::v1::HealthCheckRequest;
using ::grpc::health::v1::HealthCheckResponse;
using ::tidepool::testing::FreeLoopbackPort;
using ::tidepool::testing::OccupiedPort;

HealthCheckResponse::ServingStatus CheckHealth(uint16_t port) {
  auto channel =
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials());
  auto stub = Health::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  HealthCheckResponse response;
  const grpc::Status status = stub->Check(&context, HealthCheckRequest(), &response);
  REQUIRE(status.ok());
  return response.status();
}

TEST_CASE("GrpcServer serves health and registered services") {
  InfoServiceImpl info("test-service", "1.0.0", absl::FromUnixSeconds(100));
  const uint16_t port = FreeLoopbackPort().value();
  auto server = GrpcServer::Start("127.0.0.1", port, {&info});
  REQUIRE(server.ok());
  CHECK((*server)->port() == port);
  CHECK(CheckHealth(port) == HealthCheckResponse::SERVING);

  auto stub = tidepool::v1::InfoService::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  tidepool::v1::ServiceInfo response;
  REQUIRE(stub->GetServiceInfo(&context, {}, &response).ok());
  CHECK(response.name() == "test-service");
  CHECK(response.version() == "1.0.0");
  CHECK(response.start_time_unix() == 100);

  (*server)->SetServing(false);
  CHECK(CheckHealth(port) == HealthCheckResponse::NOT_SERVING);
}

TEST_CASE("GrpcServer refuses a port that is in use with a clear error") {
  auto occupied = OccupiedPort::Bind();
  REQUIRE(occupied.ok());
  auto server = GrpcServer::Start("127.0.0.1", occupied->port(), {});
  REQUIRE_FALSE(server.ok());
  CHECK(server.status().message() ==
        "cannot serve gRPC on 127.0.0.1:" + std::to_string(occupied->port()) +
            " (is another process using the port?)");
}

}  // namespace
}  // namespace tidepool::common

#include "common/http_server.h"

#include <atomic>
#include <catch2/catch_test_macros.hpp>

#include "common/metrics.h"
#include "support/http_get.h"
#include "support/ports.h"

namespace tidepool::common {
namespace {

using ::tidepool::testing::FreeLoopbackPort;
using ::tidepool::testing::HttpGet;
using ::tidepool::testing::OccupiedPort;

std::string Url(uint16_t port, const std::string& path) {
  return "http://127.0.0.1:" + std::to_string(port) + path;
}

TEST_CASE("HttpServer serves metrics, liveness and readiness") {
  auto registry = std::make_shared<prometheus::Registry>();
  RegisterBuildInfo(*registry, "test", "9.9.9");
  std::atomic<bool> ready{false};
  const uint16_t port = FreeLoopbackPort().value();
  auto server = HttpServer::Start("127.0.0.1", port, registry, [&ready]() -> absl::Status {
    if (ready) return absl::OkStatus();
    return absl::UnavailableError("cache not synced");
  });
  REQUIRE(server.ok());

  auto metrics = HttpGet(Url(port, "/metrics"));
  REQUIRE(metrics.ok());
  CHECK(metrics->status == 200);
  CHECK(metrics->content_type == "text/plain; version=0.0.4; charset=utf-8");
  CHECK(metrics->body.find("tidepool_test_build_info{version=\"9.9.9\"} 1") != std::string::npos);

  auto healthz = HttpGet(Url(port, "/healthz"));
  REQUIRE(healthz.ok());
  CHECK(healthz->status == 200);

  auto not_ready = HttpGet(Url(port, "/readyz"));
  REQUIRE(not_ready.ok());
  CHECK(not_ready->status == 503);
  CHECK(not_ready->body == "not ready: cache not synced\n");

  ready = true;
  auto now_ready = HttpGet(Url(port, "/readyz"));
  REQUIRE(now_ready.ok());
  CHECK(now_ready->status == 200);

  auto unknown = HttpGet(Url(port, "/nothing"));
  REQUIRE(unknown.ok());
  CHECK(unknown->status == 404);
}

TEST_CASE("HttpServer refuses a port that is in use with a clear error") {
  auto occupied = OccupiedPort::Bind();
  REQUIRE(occupied.ok());
  auto server = HttpServer::Start("127.0.0.1", occupied->port(),
                                  std::make_shared<prometheus::Registry>(), nullptr);
  REQUIRE_FALSE(server.ok());
  CHECK(server.status().code() == absl::StatusCode::kUnavailable);
  CHECK(server.status().message().find("cannot serve HTTP on 127.0.0.1:" +
                                       std::to_string(occupied->port())) == 0);
}

TEST_CASE("HttpServer stops serving when destroyed") {
  const uint16_t port = FreeLoopbackPort().value();
  {
    auto server =
        HttpServer::Start("127.0.0.1", port, std::make_shared<prometheus::Registry>(), nullptr);
    REQUIRE(server.ok());
    REQUIRE(HttpGet(Url(port, "/healthz")).ok());
  }
  CHECK_FALSE(HttpGet(Url(port, "/healthz"), absl::Seconds(1)).ok());
}

}  // namespace
}  // namespace tidepool::common

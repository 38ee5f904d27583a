#include "pod_requests.h"

#include <catch2/catch_test_macros.hpp>

#include "absl/strings/match.h"
#include "k8s/object_json.h"

namespace tidepool::podsched {
namespace {

absl::StatusOr<PodRequests> Of(const char* spec_json) {
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(spec_json, "spec");
  REQUIRE(doc.ok());
  return EffectiveRequests(*doc);
}

TEST_CASE("app containers add up; a request defaults to the limit") {
  absl::StatusOr<PodRequests> r = Of(R"({"containers":[
    {"name":"a","resources":{"requests":{"cpu":"500m","memory":"1Gi"}}},
    {"name":"b","resources":{"limits":{"cpu":"2","memory":"512Mi","nvidia.com/gpu":"4"}}}]})");
  REQUIRE(r.ok());
  CHECK(*r == PodRequests{.cpu_milli = 2500, .memory_bytes = 1536LL << 20, .gpus = 4});
}

TEST_CASE("an init container larger than the apps sets the request; sidecars add") {
  absl::StatusOr<PodRequests> r = Of(R"({
    "initContainers":[
      {"name":"fetch","resources":{"requests":{"cpu":"8","memory":"1Gi"}}},
      {"name":"proxy","restartPolicy":"Always","resources":{"requests":{"cpu":"1","memory":"2Gi"}}}],
    "containers":[{"name":"app","resources":{"requests":{"cpu":"2","memory":"1Gi"}}}],
    "overhead":{"cpu":"100m"}})");
  REQUIRE(r.ok());
  // cpu: max(2 + 1 sidecar, 8 init) + 0.1 overhead; memory: max(1 + 2, 1) Gi.
  CHECK(r->cpu_milli == 8100);
  CHECK(r->memory_bytes == 3LL << 30);
  CHECK(r->gpus == 0);
}

TEST_CASE("a pod without requests asks for nothing") {
  absl::StatusOr<PodRequests> r = Of(R"({"containers":[{"name":"a"}]})");
  REQUIRE(r.ok());
  CHECK(*r == PodRequests{});
}

TEST_CASE("an unreadable quantity is an error naming the container and resource") {
  absl::StatusOr<PodRequests> r =
      Of(R"({"containers":[{"name":"a","resources":{"requests":{"memory":"lots"}}}]})");
  REQUIRE_FALSE(r.ok());
  CHECK(absl::StrContains(r.status().message(), "container a: memory \"lots\""));
}

}  // namespace
}  // namespace tidepool::podsched

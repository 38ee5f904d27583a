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

TEST_CASE("a request more than any Slurm node has is refused, alone or added up") {
  // Each once parsed to a value whose sum or CPU count overflowed to a small job.
  const struct {
    const char* spec;
    const char* message;
  } cases[] = {
      {R"({"containers":[{"name":"a","resources":{"requests":{"cpu":"9223372036854775"}}}]})",
       "container a: cpu \"9223372036854775\" is more than any Slurm node has (at most 65535)"},
      {R"({"containers":[{"name":"a","resources":{"requests":{"memory":"5Ei"}}}]})",
       "container a: memory \"5Ei\" is more than any Slurm node has"},
      {R"({"containers":[{"name":"a","resources":{"limits":{"nvidia.com/gpu":"70000"}}}]})",
       "container a: nvidia.com/gpu \"70000\" is more than any Slurm node has (at most 65535)"},
      {R"({"containers":[{"name":"a","resources":{"requests":{"memory":"1Pi"}}},
                         {"name":"b","resources":{"requests":{"memory":"1Pi"}}}]})",
       "the pod's memory requests together are more than any Slurm node has"},
      {R"({"containers":[{"name":"a","resources":{"requests":{"cpu":"40000"}}}],
           "overhead":{"cpu":"40000"}})",
       "the pod's cpu requests together are more than any Slurm node has (at most 65535)"},
  };
  for (const auto& c : cases) {
    absl::StatusOr<PodRequests> r = Of(c.spec);
    CAPTURE(c.spec);
    REQUIRE_FALSE(r.ok());
    CHECK(absl::IsInvalidArgument(r.status()));
    CHECK(absl::StrContains(r.status().message(), c.message));
  }
  // At the limit is still a request.
  absl::StatusOr<PodRequests> most = Of(
      R"({"containers":[{"name":"a","resources":{"requests":{"cpu":"65535","memory":"1Pi"}}}]})");
  REQUIRE(most.ok());
  CHECK(most->cpu_milli == kMaxCpuMilli);
  CHECK(most->memory_bytes == kMaxMemoryBytes);
}

}  // namespace
}  // namespace tidepool::podsched

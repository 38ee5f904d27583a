// The cluster's JWT key kept fresh on a fake clock: read when first asked, again after the
// refresh interval, soon after a refusal or a failure; a failed re-read keeps the key.
#include "cluster_jwt_key_source.h"

#include <catch2/catch_test_macros.hpp>
#include <string>

#include "absl/strings/match.h"

namespace tidepool::syncer {
namespace {

// What the API would answer, and how often it was asked.
struct FakeApi {
  absl::StatusOr<ClusterJwtKey> answer =
      ClusterJwtKey{.key = std::string(64, 'a'), .secret = "hpc/research-jwt-key"};
  int reads = 0;
};

struct Fixture {
  Fixture()
      : source(
            [this] {
              ++api.reads;
              return api.answer;
            },
            {.cluster = "hpc/research",
             .refresh_interval = absl::Seconds(60),
             .retry_interval = absl::Seconds(1),
             .clock = &clock}) {}
  FakeApi api;
  common::FakeClock clock;
  ClusterJwtKeySource source;
};

TEST_CASE("the key is read once, then again after the refresh interval") {
  Fixture f;
  CHECK(*f.source.Key() == std::string(64, 'a'));
  f.clock.Advance(absl::Seconds(59));
  CHECK(f.source.Key().ok());
  CHECK(f.api.reads == 1);
  f.api.answer->key = std::string(64, 'b');
  f.clock.Advance(absl::Seconds(1));
  CHECK(*f.source.Key() == std::string(64, 'b'));
  CHECK(f.api.reads == 2);
  CHECK(f.source.Describe() == "Secret hpc/research-jwt-key of SlurmCluster hpc/research");
}

TEST_CASE("a refused key is read again after the retry interval") {
  Fixture f;
  REQUIRE(f.source.Key().ok());
  f.source.Rejected();
  CHECK(f.source.Key().ok());
  CHECK(f.api.reads == 1);
  f.clock.Advance(absl::Seconds(1));
  f.api.answer->key = std::string(64, 'c');
  CHECK(*f.source.Key() == std::string(64, 'c'));
  CHECK(f.api.reads == 2);
}

TEST_CASE("without a key, Health names the object and reads are retried") {
  Fixture f;
  CHECK_FALSE(f.source.Health().ok());  // not read yet
  f.api.answer = absl::FailedPreconditionError("Secret hpc/research-jwt-key not found");
  absl::StatusOr<std::string> key = f.source.Key();
  CHECK(absl::IsFailedPrecondition(key.status()));
  CHECK(absl::StrContains(f.source.Health().message(), "Secret hpc/research-jwt-key not found"));
  CHECK_FALSE(f.source.Key().ok());
  CHECK(f.api.reads == 1);
  f.clock.Advance(absl::Seconds(1));
  f.api.answer = ClusterJwtKey{.key = std::string(64, 'a'), .secret = "hpc/research-jwt-key"};
  CHECK(f.source.Key().ok());
  CHECK(f.source.Health().ok());
  CHECK(f.api.reads == 2);
}

TEST_CASE("a failed re-read keeps serving the key held") {
  Fixture f;
  REQUIRE(f.source.Key().ok());
  f.clock.Advance(absl::Seconds(60));
  f.api.answer = absl::UnavailableError("cannot read SlurmCluster hpc/research: timeout");
  CHECK(*f.source.Key() == std::string(64, 'a'));
  CHECK(f.source.Health().ok());
  f.clock.Advance(absl::Seconds(1));  // retried soon, not after a whole refresh interval
  CHECK(f.source.Key().ok());
  CHECK(f.api.reads == 3);
}

TEST_CASE("callers during a read get the key held instead of waiting for the API") {
  common::FakeClock clock;
  ClusterJwtKeySource* self = nullptr;
  absl::StatusOr<std::string> seen_during_read;
  int reads = 0;
  ClusterJwtKeySource source(
      [&]() -> absl::StatusOr<ClusterJwtKey> {
        // Another caller arrives while this read is in flight.
        seen_during_read = self->Key();
        return ClusterJwtKey{.key = std::string(64, static_cast<char>('a' + reads++)),
                             .secret = "hpc/research-jwt-key"};
      },
      {.cluster = "hpc/research", .refresh_interval = absl::Seconds(60), .clock = &clock});
  self = &source;
  CHECK(*source.Key() == std::string(64, 'a'));
  CHECK_FALSE(seen_during_read.ok());  // nothing held yet
  clock.Advance(absl::Seconds(60));
  CHECK(*source.Key() == std::string(64, 'b'));
  CHECK(*seen_during_read == std::string(64, 'a'));
  CHECK(reads == 2);
}

}  // namespace
}  // namespace tidepool::syncer

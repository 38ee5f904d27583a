#include "missing_jobs.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::podsched {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

TEST_CASE("a missing job counts as gone only after it stayed missing for the whole time") {
  MissingJobs missing(absl::Seconds(10));
  CHECK(missing.MissingFor(7, kStart) == absl::Seconds(10));
  CHECK(missing.MissingFor(7, kStart + absl::Seconds(4)) == absl::Seconds(6));
  CHECK(missing.MissingFor(8, kStart + absl::Seconds(4)) == absl::Seconds(10));
  CHECK(missing.MissingFor(7, kStart + absl::Seconds(10)) == absl::ZeroDuration());
  CHECK(missing.MissingFor(7, kStart + absl::Seconds(11)) == absl::ZeroDuration());
  // A clock stepped back makes the wait no longer than it is.
  CHECK(missing.MissingFor(8, kStart - absl::Seconds(30)) == absl::Seconds(10));
}

TEST_CASE("a job found again starts a fresh clock when it goes missing later") {
  MissingJobs missing(absl::Seconds(10));
  (void)missing.MissingFor(7, kStart);
  missing.Found(7);
  CHECK(missing.MissingFor(7, kStart + absl::Seconds(9)) == absl::Seconds(10));
}

TEST_CASE("an absence nobody asked about for long is forgotten, not taken as confirmed") {
  MissingJobs missing(absl::Seconds(10));
  (void)missing.MissingFor(7, kStart);
  CHECK(missing.MissingFor(7, kStart + absl::Seconds(25)) == absl::Seconds(10));
}

}  // namespace
}  // namespace tidepool::podsched

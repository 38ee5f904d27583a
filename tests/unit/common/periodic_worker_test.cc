#include "common/periodic_worker.h"

#include <atomic>
#include <catch2/catch_test_macros.hpp>

#include "absl/time/clock.h"

namespace tidepool::common {
namespace {

// Waits up to `limit` for `runs` to reach `count`.
bool ReachesWithin(const std::atomic<int>& runs, int count, absl::Duration limit) {
  const absl::Time deadline = absl::Now() + limit;
  while (runs.load() < count) {
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(5));
  }
  return true;
}

TEST_CASE("a periodic worker runs at once, then when woken, and within a delay when asked") {
  std::atomic<int> runs{0};
  PeriodicWorker worker(absl::Hours(1), [&] { ++runs; });
  REQUIRE(ReachesWithin(runs, 1, absl::Seconds(5)));

  worker.Wake();
  REQUIRE(ReachesWithin(runs, 2, absl::Seconds(5)));

  // Waiting for the hourly run now: a delay moves the next run up, not to at once.
  const absl::Time asked = absl::Now();
  worker.WakeWithin(absl::Milliseconds(300));
  REQUIRE(ReachesWithin(runs, 3, absl::Seconds(5)));
  CHECK(absl::Now() - asked >= absl::Milliseconds(250));

  // A later, longer delay does not postpone a shorter one.
  worker.WakeWithin(absl::Milliseconds(100));
  worker.WakeWithin(absl::Hours(2));
  CHECK(ReachesWithin(runs, 4, absl::Seconds(5)));

  // Without a wake, nothing runs before the interval.
  absl::SleepFor(absl::Milliseconds(300));
  CHECK(runs.load() == 4);
  worker.Stop();
}

}  // namespace
}  // namespace tidepool::common

#include "k8s/rate_limiter.h"

#include <catch2/catch_test_macros.hpp>
#include <thread>
#include <vector>

namespace tidepool::k8s {
namespace {

TEST_CASE("a full bucket allows a burst, then one request per 1/qps") {
  common::FakeClock clock;
  TokenBucketRateLimiter limiter(10, 3, &clock);
  CHECK(limiter.Reserve() == absl::ZeroDuration());
  CHECK(limiter.Reserve() == absl::ZeroDuration());
  CHECK(limiter.Reserve() == absl::ZeroDuration());
  // Reservations beyond the burst queue up one interval apart.
  CHECK(limiter.Reserve() == absl::Milliseconds(100));
  CHECK(limiter.Reserve() == absl::Milliseconds(200));
  clock.Advance(absl::Milliseconds(200));
  CHECK(limiter.Reserve() == absl::Milliseconds(100));
}

TEST_CASE("Wait sleeps on the injected clock") {
  common::FakeClock clock;
  TokenBucketRateLimiter limiter(5, 2, &clock);
  const absl::Time start = clock.Now();
  for (int i = 0; i < 12; ++i) limiter.Wait();
  // 2 from the burst, 10 more at 5 per second.
  CHECK(clock.Now() - start == absl::Seconds(2));
  CHECK(clock.TotalSlept() >= absl::Seconds(2));
}

TEST_CASE("the bucket refills to its burst, not beyond") {
  common::FakeClock clock;
  TokenBucketRateLimiter limiter(1, 2, &clock);
  CHECK(limiter.TryAccept());
  CHECK(limiter.TryAccept());
  CHECK_FALSE(limiter.TryAccept());
  clock.Advance(absl::Milliseconds(999));
  CHECK_FALSE(limiter.TryAccept());
  clock.Advance(absl::Milliseconds(1));
  CHECK(limiter.TryAccept());
  clock.Advance(absl::Hours(1));
  CHECK(limiter.TryAccept());
  CHECK(limiter.TryAccept());
  CHECK_FALSE(limiter.TryAccept());
}

TEST_CASE("qps 0 is no limit") {
  common::FakeClock clock;
  TokenBucketRateLimiter limiter(0, 1, &clock);
  for (int i = 0; i < 1000; ++i) REQUIRE(limiter.TryAccept());
  CHECK(limiter.Reserve() == absl::ZeroDuration());
}

TEST_CASE("concurrent callers each get a distinct slot") {
  common::FakeClock clock;
  TokenBucketRateLimiter limiter(100, 1, &clock);
  std::vector<absl::Duration> waits(8 * 50);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) waits[t * 50 + i] = limiter.Reserve();
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::sort(waits.begin(), waits.end());
  for (size_t i = 0; i < waits.size(); ++i) {
    // The i-th reservation waits i intervals of 10 ms (tolerating float rounding).
    CHECK(absl::AbsDuration(waits[i] - absl::Milliseconds(10) * static_cast<int64_t>(i)) <
          absl::Microseconds(1));
  }
}

}  // namespace
}  // namespace tidepool::k8s

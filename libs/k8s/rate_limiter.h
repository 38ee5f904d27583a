#pragma once

// Client-side rate limit: a token bucket of `burst` tokens refilled at `qps` per second,
// as client-go's flowcontrol limiter. Thread-safe.

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"

namespace tidepool::k8s {

class TokenBucketRateLimiter {
 public:
  // qps <= 0 means no limit. burst < 1 counts as 1. `clock` must outlive the limiter.
  TokenBucketRateLimiter(double qps, int burst, common::Clock* clock);

  // Takes a token now if one is there; false (and nothing taken) otherwise.
  bool TryAccept();
  // Takes a token, possibly one not yet refilled, and returns how long the caller must
  // wait before using it (zero when one was there). Reservations queue fairly: each
  // later caller waits one refill interval longer.
  absl::Duration Reserve();
  // Reserve() and sleep on the clock for the returned time.
  void Wait();

  double qps() const { return qps_; }
  int burst() const { return burst_; }

 private:
  void RefillLocked(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const double qps_;
  const int burst_;
  common::Clock* const clock_;
  absl::Mutex mutex_;
  double tokens_ ABSL_GUARDED_BY(mutex_);
  absl::Time last_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace tidepool::k8s

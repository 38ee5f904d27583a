#pragma once

// Time as Tidepool code sees it: injected, so rate limits, backoff, retries and
// token refreshes are exact in tests.

#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace tidepool::common {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual absl::Time Now() const = 0;
  virtual void SleepFor(absl::Duration duration) = 0;
};

// The process's real clock (absl::Now, absl::SleepFor). Never destroyed.
Clock* RealClock();

// A clock that only moves when told: SleepFor advances it at once (and records the
// total slept), so code that waits runs without waiting.
class FakeClock : public Clock {
 public:
  explicit FakeClock(absl::Time start = absl::UnixEpoch() + absl::Hours(24 * 365 * 56))
      : now_(start) {}
  absl::Time Now() const override {
    absl::MutexLock lock(&mutex_);
    return now_;
  }
  void SleepFor(absl::Duration duration) override {
    absl::MutexLock lock(&mutex_);
    if (duration > absl::ZeroDuration()) {
      now_ += duration;
      slept_ += duration;
      sleeps_.push_back(duration);
    }
  }
  void Advance(absl::Duration duration) {
    absl::MutexLock lock(&mutex_);
    now_ += duration;
  }
  absl::Duration TotalSlept() const {
    absl::MutexLock lock(&mutex_);
    return slept_;
  }
  // Each SleepFor, in order.
  std::vector<absl::Duration> Sleeps() const {
    absl::MutexLock lock(&mutex_);
    return sleeps_;
  }

 private:
  mutable absl::Mutex mutex_;
  absl::Time now_ ABSL_GUARDED_BY(mutex_);
  absl::Duration slept_ ABSL_GUARDED_BY(mutex_) = absl::ZeroDuration();
  std::vector<absl::Duration> sleeps_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace tidepool::common

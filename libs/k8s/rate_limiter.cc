#include "k8s/rate_limiter.h"

#include <algorithm>

namespace tidepool::k8s {

TokenBucketRateLimiter::TokenBucketRateLimiter(double qps, int burst, common::Clock* clock)
    : qps_(qps), burst_(std::max(burst, 1)), clock_(clock), tokens_(burst_), last_(clock->Now()) {}

void TokenBucketRateLimiter::RefillLocked(absl::Time now) {
  if (now > last_) {
    tokens_ = std::min<double>(burst_, tokens_ + absl::ToDoubleSeconds(now - last_) * qps_);
    last_ = now;
  }
}

bool TokenBucketRateLimiter::TryAccept() {
  if (qps_ <= 0) return true;
  absl::MutexLock lock(&mutex_);
  RefillLocked(clock_->Now());
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

absl::Duration TokenBucketRateLimiter::Reserve() {
  if (qps_ <= 0) return absl::ZeroDuration();
  absl::MutexLock lock(&mutex_);
  RefillLocked(clock_->Now());
  tokens_ -= 1;
  if (tokens_ >= 0) return absl::ZeroDuration();
  return absl::Seconds(-tokens_ / qps_);
}

void TokenBucketRateLimiter::Wait() { clock_->SleepFor(Reserve()); }

}  // namespace tidepool::k8s

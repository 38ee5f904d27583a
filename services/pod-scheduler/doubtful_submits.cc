#include "doubtful_submits.h"

#include <algorithm>

#include "job_facts.h"

namespace tidepool::podsched {

void DoubtfulSubmits::Failed(const std::string& key, const absl::Status& status, absl::Time now) {
  absl::MutexLock lock(&mutex_);
  // Keys whose wait is over are forgotten here, so the map holds only the current doubts.
  std::erase_if(failed_at_, [&](const auto& entry) { return now - entry.second >= wait_for_; });
  if (SubmissionInDoubt(status)) failed_at_[key] = now;
}

absl::Duration DoubtfulSubmits::WaitLeft(const std::string& key, absl::Time now) {
  absl::MutexLock lock(&mutex_);
  auto it = failed_at_.find(key);
  if (it == failed_at_.end()) return absl::ZeroDuration();
  // At most wait_for_, were the clock to step back.
  const absl::Duration left = std::min(wait_for_, wait_for_ - (now - it->second));
  if (left <= absl::ZeroDuration()) {
    failed_at_.erase(it);
    return absl::ZeroDuration();
  }
  return left;
}

}  // namespace tidepool::podsched

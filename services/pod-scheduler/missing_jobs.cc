#include "missing_jobs.h"

#include <algorithm>

namespace tidepool::podsched {

absl::Duration MissingJobs::MissingFor(uint32_t job_id, absl::Time now) {
  absl::MutexLock lock(&mutex_);
  // An absence nobody asked about for a while was resolved without us (its pod deleted,
  // the job seen again by a sync of another key): forget it rather than keep it forever.
  std::erase_if(by_job_, [&](const auto& entry) {
    return now - entry.second.last_asked > 2 * confirm_after_;
  });
  auto [it, inserted] = by_job_.try_emplace(job_id, Absence{.since = now, .last_asked = now});
  it->second.last_asked = now;
  // Within [0, confirm_after_], were the clock to step back.
  return std::clamp(confirm_after_ - (now - it->second.since), absl::ZeroDuration(),
                    confirm_after_);
}

void MissingJobs::Found(uint32_t job_id) {
  absl::MutexLock lock(&mutex_);
  by_job_.erase(job_id);
}

}  // namespace tidepool::podsched

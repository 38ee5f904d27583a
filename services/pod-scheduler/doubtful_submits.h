#pragma once

// A submission that failed without Slurm's answer (a deadline passed, the connection
// dropped) may still have made the job: slurm-syncer's job watch shows it within a poll.
// Submitting again at once would make a second job, which may take nodes before it is
// cancelled as a duplicate; so the pod (or group) waits a while for the job to show
// before it submits again. A refusal (Slurm's or the syncer's) made no job: no wait.

#include <map>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace tidepool::podsched {

class DoubtfulSubmits {
 public:
  explicit DoubtfulSubmits(absl::Duration wait_for) : wait_for_(wait_for) {}

  // `key`'s submission failed with `status` at `now`.
  void Failed(const std::string& key, const absl::Status& status, absl::Time now);
  // How much longer `key` waits before submitting again (zero: it may submit).
  absl::Duration WaitLeft(const std::string& key, absl::Time now);

 private:
  const absl::Duration wait_for_;
  absl::Mutex mutex_;
  std::map<std::string, absl::Time> failed_at_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace tidepool::podsched

#pragma once

// A job a pod is annotated with, missing from one view of Slurm's jobs, is not yet gone.
// The view can trail Slurm: slurm-syncer publishes a job it just submitted at its next
// poll, and a poll may read a short or failed reply. Deleting the pod on the first such
// view would lose it (and the reaper would then cancel its job), so the job counts as gone
// only once it has been missing for a while, in every view in between.

#include <cstdint>
#include <map>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace tidepool::podsched {

class MissingJobs {
 public:
  explicit MissingJobs(absl::Duration confirm_after) : confirm_after_(confirm_after) {}

  // `job_id` is missing from the view at `now`: how much longer it must stay missing
  // before it counts as gone (zero: it is gone). The first call starts the clock.
  absl::Duration MissingFor(uint32_t job_id, absl::Time now);
  // `job_id` is in the view: a later absence starts a fresh clock.
  void Found(uint32_t job_id);

 private:
  struct Absence {
    absl::Time since;
    absl::Time last_asked;
  };
  const absl::Duration confirm_after_;
  absl::Mutex mutex_;
  std::map<uint32_t, Absence> by_job_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace tidepool::podsched

#pragma once

// Follows slurm-syncer's WatchJobs into the JobTable on a thread of its own, again with
// backoff whenever the stream ends, and again at once when the first snapshot predates
// this process (so the table holds every job an earlier run submitted). Tells the
// scheduler which pod keys' jobs changed, and when the whole view was replaced.

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "job_table.h"
#include "syncer_jobs.h"

namespace tidepool::podsched {

class JobWatch {
 public:
  // `everything`: a complete snapshot, or the view fresh again after Slurm was unavailable:
  // every key is to be looked at, not only `pod_keys`.
  using OnChange = std::function<void(const std::set<std::string>& pod_keys, bool everything)>;
  // `syncer` and `table` outlive the watch.
  JobWatch(SyncerJobs& syncer, JobTable& table, OnChange on_change)
      : syncer_(syncer), table_(table), on_change_(std::move(on_change)) {}
  ~JobWatch() { Stop(); }

  void Start();
  void Stop();
  // Why the view is not current ("" once a stream delivered a snapshot).
  std::string problem();

 private:
  void Loop();
  // One stream until it ends: returns why.
  std::string WatchOnce();
  bool WaitUnlessStopped(absl::Duration duration);
  void SetProblem(std::string problem);

  SyncerJobs& syncer_;
  JobTable& table_;
  const OnChange on_change_;
  absl::Mutex mutex_;
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  JobWatchStream* stream_ ABSL_GUARDED_BY(mutex_) = nullptr;
  std::string problem_ ABSL_GUARDED_BY(mutex_) = "no job snapshot from slurm-syncer yet";
  std::thread thread_;
};

}  // namespace tidepool::podsched

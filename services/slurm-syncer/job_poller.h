#pragma once

// Reads Slurm's jobs for WatchJobs every interval (JobView: job states, and whole jobs
// only for those that changed), but only while someone watches; the view is dropped when
// the last watcher leaves, so the next one starts from a fresh snapshot. A job submitted
// here is followed closely: while it is pending (Slurm starts batch jobs in its next
// scheduling pass, up to a second after the submit call), polls come every 100 ms for up
// to 5 s, so a watcher learns of its start without waiting out the interval. Meanwhile,
// while it stays PENDING, watchers get it as submitted and it is not read (see
// JobView::Refresh).
//
//   tidepool_slurm_syncer_job_polls_total{result="changed|unchanged|error"}

#include <map>
#include <memory>
#include <optional>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/periodic_worker.h"
#include "feed.h"
#include "job_view.h"
#include "prometheus/counter.h"
#include "prometheus/registry.h"
#include "slurm/rest/model.h"
#include "slurm_gateway.h"

namespace tidepool::syncer {

using JobFeed = Feed<slurm::rest::JobId, slurm::rest::Job>;

class JobPoller {
 public:
  JobPoller(SlurmGateway& slurm, JobFeed& feed, absl::Duration interval,
            prometheus::Registry& registry);

  void Start();
  void Stop();
  // Polls now (a watcher arrived and waits for its snapshot).
  void Wake();
  // Polls now, and often while `id` is pending. `as_submitted` (its record as submitted,
  // PENDING) joins the view instead of a read, when known.
  void FollowSubmitted(slurm::rest::JobId id, std::optional<slurm::rest::Job> as_submitted);
  void PollOnce();

 private:
  SlurmGateway& slurm_;
  JobFeed& feed_;
  const absl::Duration interval_;
  prometheus::Family<prometheus::Counter>& polls_;
  JobView view_;  // used by PollOnce only (the worker's thread)
  // Stops following the jobs that left PENDING, and those followed long enough.
  void ForgetStarted(const std::vector<slurm::rest::Job>& jobs);
  absl::Mutex mutex_;
  // Submitted here and not yet seen out of PENDING.
  struct Followed {
    absl::Time until;  // when to stop following
    std::optional<slurm::rest::Job> as_submitted;
  };
  std::map<slurm::rest::JobId, Followed> followed_ ABSL_GUARDED_BY(mutex_);
  std::unique_ptr<common::PeriodicWorker> worker_;
};

}  // namespace tidepool::syncer

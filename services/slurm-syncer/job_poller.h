#pragma once

// Reads Slurm's jobs for WatchJobs: a full list every interval, but only while someone
// watches (a busy cluster's job list is large); the view is dropped when the last
// watcher leaves, so the next one starts from a fresh snapshot.
//
//   tidepool_slurm_syncer_job_polls_total{result="changed|unchanged|error"}

#include <memory>

#include "absl/time/time.h"
#include "common/periodic_worker.h"
#include "feed.h"
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
  void PollOnce();

 private:
  SlurmGateway& slurm_;
  JobFeed& feed_;
  const absl::Duration interval_;
  prometheus::Family<prometheus::Counter>& polls_;
  std::unique_ptr<common::PeriodicWorker> worker_;
};

}  // namespace tidepool::syncer

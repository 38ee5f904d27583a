#pragma once

// Slurm's own state as Prometheus metrics, read by the syncer (the only client of
// slurmrestd) every interval: the nodes from the node feed (no extra call), the jobs and
// `diag` from slurmrestd. Every replica publishes the same facts; dashboards take max().
//
//   tidepool_slurm_jobs{partition, state}                 jobs Slurm lists
//   tidepool_slurm_pending_jobs{reason}                   the queue by pending reason
//   tidepool_slurm_pending_oldest_wait_seconds{partition} the longest wait so far
//   tidepool_slurm_job_start_wait_seconds                 submit -> start, histogram
//   tidepool_slurm_nodes{partition, state} idle|mixed|allocated|draining|drained|down|…
//   tidepool_slurm_cpus{partition, state}, tidepool_slurm_gpus{partition, state}  allocated|idle
//   tidepool_slurm_scheduler_cycle_{last,mean,max}_seconds, _cycles_per_minute, _queue_length
//   tidepool_slurm_backfill_cycle_{last,mean}_seconds, tidepool_slurm_backfill_queue_length,
//   tidepool_slurm_backfill_active, tidepool_slurm_server_threads,
//   tidepool_slurm_agent_queue_size, tidepool_slurm_dbd_agent_queue_size
//   tidepool_slurm_diag_jobs{event}        diag's job counters since Slurm's daily reset
//   tidepool_slurm_syncer_slurm_metrics_collections_total{result="ok|error"}

#include <memory>
#include <set>

#include "absl/time/time.h"
#include "common/periodic_worker.h"
#include "job_poller.h"
#include "node_poller.h"
#include "prometheus/registry.h"
#include "slurm_gateway.h"

namespace tidepool::syncer {

class SlurmMetrics {
 public:
  SlurmMetrics(SlurmGateway& slurm, const NodeFeed& nodes, absl::Duration interval,
               prometheus::Registry& registry);
  ~SlurmMetrics();

  void Start();
  void Stop();
  // One collection on the caller's thread (Start's thread calls this).
  void CollectOnce();

 private:
  struct Families;
  SlurmGateway& slurm_;
  const NodeFeed& nodes_;
  const absl::Duration interval_;
  std::unique_ptr<Families> families_;
  // Owned by the collecting thread.
  std::set<slurm::rest::JobId> started_;
  bool primed_ = false;
  bool failing_ = false;
  std::unique_ptr<common::PeriodicWorker> worker_;
};

}  // namespace tidepool::syncer

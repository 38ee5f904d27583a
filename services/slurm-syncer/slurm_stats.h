#pragma once

// What Slurm's jobs and nodes add up to for metrics: jobs by partition and state, the
// pending queue (by reason, oldest wait per partition), nodes by partition and state,
// CPUs and GPUs allocated and idle per partition, and the waits of jobs that started.
// Pure: the collector (slurm_metrics.h) publishes it.

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "slurm/rest/model.h"

namespace tidepool::syncer {

struct PartitionResources {
  int64_t cpus = 0;
  int64_t cpus_allocated = 0;
  int64_t gpus = 0;
  int64_t gpus_allocated = 0;

  bool operator==(const PartitionResources&) const = default;
};

struct SlurmStats {
  using PartitionState = std::pair<std::string, std::string>;  // (partition, state)
  std::map<PartitionState, int64_t> jobs;
  std::map<std::string, int64_t> pending_by_reason;
  std::map<std::string, double> oldest_pending_seconds;  // by partition
  std::map<PartitionState, int64_t> nodes;
  std::map<std::string, PartitionResources> resources;  // by partition
};

// A node's one state for metrics: "down", "drained" (DRAIN and nothing running),
// "draining" (DRAIN with jobs), else its base state ("idle", "mixed", "allocated",
// "future", "error", "unknown"), lower case.
std::string NodeMetricState(const slurm::rest::Node& node);

// A job's primary state, lower case ("pending", "running", "completing", …); "unknown"
// when Slurm gives none.
std::string JobMetricState(const slurm::rest::Job& job);

// Nodes count once in each partition they belong to ("" for none); every partition of a
// node has a running and a pending count and an oldest wait, 0 when idle; a job counts in the
// partition(s) Slurm lists for it, as one label value ("batch,urgent").
SlurmStats Summarize(const std::vector<slurm::rest::Job>& jobs,
                     const std::vector<slurm::rest::Node>& nodes, absl::Time now);

// The seconds each job waited from submission to start, for the jobs seen started for
// the first time: `started` holds the ids already counted and is updated (ids of jobs
// Slurm no longer lists are dropped). With `prime`, nothing is returned: the jobs running
// when the syncer starts are remembered, not counted.
std::vector<double> NewStartWaits(const std::vector<slurm::rest::Job>& jobs,
                                  std::set<slurm::rest::JobId>* started, bool prime);

}  // namespace tidepool::syncer

#include "slurm_stats.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "slurm/rest/gres_text.h"

namespace tidepool::syncer {
namespace {

using slurm::rest::Job;
using slurm::rest::Node;
using slurm::rest::NodeState;

constexpr std::pair<NodeState, const char*> kBaseStates[] = {
    {NodeState::kAllocated, "allocated"}, {NodeState::kMixed, "mixed"}, {NodeState::kIdle, "idle"},
    {NodeState::kFuture, "future"},       {NodeState::kError, "error"},
};

// Started: no longer pending, with nodes (a job cancelled while pending has a start time
// but never had nodes).
bool Started(const Job& job) {
  return !job.Pending() && !job.nodes.empty() && job.start_time.has_value() &&
         job.submit_time.has_value() && *job.start_time >= *job.submit_time;
}

void AddNode(const Node& node, SlurmStats& stats) {
  const std::string state = NodeMetricState(node);
  const int64_t gpus = slurm::rest::GresCount(node.gres, "gpu");
  const int64_t gpus_used = std::min(gpus, slurm::rest::GresCount(node.gres_used, "gpu"));
  std::vector<std::string> partitions = node.partitions;
  if (partitions.empty()) partitions.emplace_back();
  for (const std::string& partition : partitions) {
    ++stats.nodes[{partition, state}];
    PartitionResources& r = stats.resources[partition];
    r.cpus += node.cpus;
    r.cpus_allocated += std::min(node.alloc_cpus, node.cpus);
    r.gpus += gpus;
    r.gpus_allocated += gpus_used;
  }
}

void AddJob(const Job& job, absl::Time now, SlurmStats& stats) {
  ++stats.jobs[{job.partition, JobMetricState(job)}];
  if (!job.Pending()) return;
  ++stats.pending_by_reason[job.reason.empty() ? "None" : job.reason];
  if (!job.submit_time.has_value()) return;
  const double waited = std::max(0.0, absl::ToDoubleSeconds(now - *job.submit_time));
  double& oldest = stats.oldest_pending_seconds[job.partition];
  oldest = std::max(oldest, waited);
}

}  // namespace

std::string NodeMetricState(const Node& node) {
  if (node.state.Has(NodeState::kDown)) return "down";
  const bool busy = node.state.Has(NodeState::kAllocated) || node.state.Has(NodeState::kMixed) ||
                    node.state.Has(NodeState::kCompleting);
  if (node.state.Has(NodeState::kDrain)) return busy ? "draining" : "drained";
  for (const auto& [state, label] : kBaseStates) {
    if (node.state.Has(state)) return label;
  }
  return "unknown";
}

std::string JobMetricState(const Job& job) {
  const std::string primary = job.PrimaryState();
  if (primary.empty()) return "unknown";
  if (job.HasState("COMPLETING") && primary != "COMPLETING") return "completing";
  return absl::AsciiStrToLower(primary);
}

SlurmStats Summarize(const std::vector<Job>& jobs, const std::vector<Node>& nodes, absl::Time now) {
  SlurmStats stats;
  for (const Node& node : nodes) AddNode(node, stats);
  // An idle partition says 0 running, 0 pending, nothing waiting, rather than nothing.
  for (const auto& [partition, unused] : stats.resources) {
    if (partition.empty()) continue;
    stats.jobs.try_emplace({partition, "running"}, 0);
    stats.jobs.try_emplace({partition, "pending"}, 0);
    stats.oldest_pending_seconds.try_emplace(partition, 0.0);
  }
  for (const Job& job : jobs) AddJob(job, now, stats);
  return stats;
}

std::vector<double> NewStartWaits(const std::vector<Job>& jobs,
                                  std::set<slurm::rest::JobId>* started, bool prime) {
  std::vector<double> waits;
  std::set<slurm::rest::JobId> listed;
  for (const Job& job : jobs) {
    listed.insert(job.id);
    if (!Started(job) || !started->insert(job.id).second || prime) continue;
    waits.push_back(absl::ToDoubleSeconds(*job.start_time - *job.submit_time));
  }
  std::erase_if(*started, [&](slurm::rest::JobId id) { return !listed.contains(id); });
  return waits;
}

}  // namespace tidepool::syncer

#include "slurm_metrics.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/log.h"
#include "common/metrics.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "slurm_stats.h"

namespace tidepool::syncer {
namespace {

using Values = std::map<prometheus::Labels, double>;

prometheus::Family<prometheus::Gauge>& Gauge(prometheus::Registry& registry, const char* name,
                                             const char* help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(registry);
}

// A gauge family whose series are exactly the last published values: label sets that
// disappear (a partition removed, no job left in a state) are removed, not left stale.
class GaugeSeries {
 public:
  explicit GaugeSeries(prometheus::Family<prometheus::Gauge>& family) : family_(family) {}

  void Publish(const Values& values) {
    for (auto it = series_.begin(); it != series_.end();) {
      if (values.contains(it->first)) {
        ++it;
        continue;
      }
      family_.Remove(it->second);
      it = series_.erase(it);
    }
    for (const auto& [labels, value] : values) {
      auto [it, added] = series_.try_emplace(labels, nullptr);
      if (added) it->second = &family_.Add(labels);
      it->second->Set(value);
    }
  }

 private:
  prometheus::Family<prometheus::Gauge>& family_;
  std::map<prometheus::Labels, prometheus::Gauge*> series_;
};

Values ByPartitionState(const std::map<SlurmStats::PartitionState, int64_t>& counts) {
  Values values;
  for (const auto& [key, count] : counts) {
    values[{{"partition", key.first}, {"state", key.second}}] = static_cast<double>(count);
  }
  return values;
}

double Seconds(int64_t microseconds) { return static_cast<double>(microseconds) / 1e6; }

// diag's single numbers, one gauge each.
struct DiagGauge {
  const char* name;
  const char* help;
  double (*value)(const slurm::rest::DiagInfo&);
};

constexpr DiagGauge kDiagGauges[] = {
    {"tidepool_slurm_scheduler_cycle_last_seconds", "Duration of the main scheduler's last cycle",
     [](const slurm::rest::DiagInfo& d) { return Seconds(d.schedule_cycle_last_us); }},
    {"tidepool_slurm_scheduler_cycle_mean_seconds", "Mean duration of the main scheduler's cycles",
     [](const slurm::rest::DiagInfo& d) { return Seconds(d.schedule_cycle_mean_us); }},
    {"tidepool_slurm_scheduler_cycle_max_seconds", "Longest main scheduler cycle since the reset",
     [](const slurm::rest::DiagInfo& d) { return Seconds(d.schedule_cycle_max_us); }},
    {"tidepool_slurm_scheduler_cycles_per_minute", "Main scheduler cycles per minute",
     [](const slurm::rest::DiagInfo& d) {
       return static_cast<double>(d.schedule_cycles_per_minute);
     }},
    {"tidepool_slurm_scheduler_queue_length", "Jobs the main scheduler's last cycle looked at",
     [](const slurm::rest::DiagInfo& d) { return static_cast<double>(d.schedule_queue_length); }},
    {"tidepool_slurm_backfill_active", "1 while a backfill cycle runs",
     [](const slurm::rest::DiagInfo& d) { return d.backfill_active ? 1.0 : 0.0; }},
    {"tidepool_slurm_backfill_cycle_last_seconds", "Duration of the last backfill cycle",
     [](const slurm::rest::DiagInfo& d) { return Seconds(d.backfill_cycle_last_us); }},
    {"tidepool_slurm_backfill_cycle_mean_seconds", "Mean duration of the backfill cycles",
     [](const slurm::rest::DiagInfo& d) { return Seconds(d.backfill_cycle_mean_us); }},
    {"tidepool_slurm_backfill_queue_length", "Jobs the last backfill cycle looked at",
     [](const slurm::rest::DiagInfo& d) { return static_cast<double>(d.backfill_queue_length); }},
    {"tidepool_slurm_server_threads", "slurmctld's active server threads",
     [](const slurm::rest::DiagInfo& d) { return static_cast<double>(d.server_thread_count); }},
    {"tidepool_slurm_agent_queue_size", "slurmctld's outgoing RPCs waiting (agent queue)",
     [](const slurm::rest::DiagInfo& d) { return static_cast<double>(d.agent_queue_size); }},
    {"tidepool_slurm_dbd_agent_queue_size",
     "Messages slurmctld holds for slurmdbd (grows while accounting is unreachable)",
     [](const slurm::rest::DiagInfo& d) { return static_cast<double>(d.dbd_agent_queue_size); }},
};

Values DiagJobs(const slurm::rest::DiagInfo& d) {
  auto value = [](int64_t n) { return static_cast<double>(n); };
  return {{{{"event", "submitted"}}, value(d.jobs_submitted)},
          {{{"event", "started"}}, value(d.jobs_started)},
          {{{"event", "completed"}}, value(d.jobs_completed)},
          {{{"event", "canceled"}}, value(d.jobs_canceled)},
          {{{"event", "failed"}}, value(d.jobs_failed)}};
}

Values Resources(const std::map<std::string, PartitionResources>& by_partition, bool gpus) {
  Values values;
  for (const auto& [partition, r] : by_partition) {
    const int64_t total = gpus ? r.gpus : r.cpus;
    const int64_t allocated = gpus ? r.gpus_allocated : r.cpus_allocated;
    values[{{"partition", partition}, {"state", "allocated"}}] = static_cast<double>(allocated);
    values[{{"partition", partition}, {"state", "idle"}}] = static_cast<double>(total - allocated);
  }
  return values;
}

}  // namespace

struct SlurmMetrics::Families {
  explicit Families(prometheus::Registry& registry)
      : jobs(Gauge(registry, "tidepool_slurm_jobs", "Jobs Slurm lists, by partition and state")),
        pending(Gauge(registry, "tidepool_slurm_pending_jobs",
                      "Pending jobs by Slurm's pending reason (Priority, Resources, …)")),
        oldest_wait(Gauge(registry, "tidepool_slurm_pending_oldest_wait_seconds",
                          "How long the longest-waiting pending job of a partition has waited")),
        nodes(Gauge(registry, "tidepool_slurm_nodes",
                    "Slurm nodes by partition and state (idle, mixed, allocated, draining, "
                    "drained, down, …); a node counts in each of its partitions")),
        cpus(Gauge(registry, "tidepool_slurm_cpus",
                   "CPUs of a partition's nodes, allocated or idle")),
        gpus(Gauge(registry, "tidepool_slurm_gpus",
                   "GPUs (gres/gpu) of a partition's nodes, allocated or idle")),
        diag_jobs(Gauge(registry, "tidepool_slurm_diag_jobs",
                        "diag's job counters (submitted, started, completed, canceled, failed) "
                        "since Slurm's last statistics reset (daily at midnight)")),
        start_wait(
            prometheus::BuildHistogram()
                .Name("tidepool_slurm_job_start_wait_seconds")
                .Help("Submit to start of the jobs seen starting (jobs shorter than the "
                      "collection interval may be missed)")
                .Register(registry)
                .Add({}, prometheus::Histogram::BucketBoundaries{1, 5, 15, 60, 300, 900, 3600,
                                                                 4 * 3600, 24 * 3600})),
        collections(prometheus::BuildCounter()
                        .Name(common::MetricName("slurm-syncer", "slurm_metrics_collections_total"))
                        .Help("Collections of Slurm's metrics by result (ok, error)")
                        .Register(registry)) {
    common::AddZeroSeries(collections, {{"result", {"ok", "error"}}});
    for (const DiagGauge& gauge : kDiagGauges) {
      diag.emplace_back(Gauge(registry, gauge.name, gauge.help));
    }
  }

  GaugeSeries jobs, pending, oldest_wait, nodes, cpus, gpus, diag_jobs;
  std::vector<GaugeSeries> diag;  // kDiagGauges' order
  prometheus::Histogram& start_wait;
  prometheus::Family<prometheus::Counter>& collections;
};

SlurmMetrics::SlurmMetrics(SlurmGateway& slurm, const NodeFeed& nodes, absl::Duration interval,
                           prometheus::Registry& registry)
    : slurm_(slurm),
      nodes_(nodes),
      interval_(interval),
      families_(std::make_unique<Families>(registry)) {}

SlurmMetrics::~SlurmMetrics() { Stop(); }

void SlurmMetrics::Start() {
  worker_ = std::make_unique<common::PeriodicWorker>(interval_, [this] { CollectOnce(); });
}

void SlurmMetrics::Stop() { worker_.reset(); }

void SlurmMetrics::CollectOnce() {
  // The node feed is the node poller's view: nothing to say before its first poll, and
  // only a current one says something.
  if (!nodes_.synced()) return;
  absl::Status nodes_current = nodes_.Current();
  absl::StatusOr<slurm::rest::JobList> jobs = slurm_.GetJobs();
  absl::StatusOr<slurm::rest::DiagInfo> diag = slurm_.Diag();
  Families& f = *families_;
  for (const absl::Status& status : {nodes_current, jobs.status(), diag.status()}) {
    if (status.ok()) continue;
    // Kept as last published: an outage shows in the reachability metrics, not as zeros.
    f.collections.Add({{"result", "error"}}).Increment();
    if (!failing_) {
      common::LogWarn(
          "slurm_metrics_not_collected",
          {{"error", status}, {"action", "the last values stay; retried each interval"}});
    }
    failing_ = true;
    return;
  }
  if (failing_) common::LogInfo("slurm_metrics_collected_again");
  failing_ = false;
  const SlurmStats stats = Summarize(jobs->jobs, nodes_.Items(), absl::Now());
  f.jobs.Publish(ByPartitionState(stats.jobs));
  Values pending;
  for (const auto& [reason, count] : stats.pending_by_reason) {
    pending[{{"reason", reason}}] = static_cast<double>(count);
  }
  f.pending.Publish(pending);
  Values oldest;
  for (const auto& [partition, seconds] : stats.oldest_pending_seconds) {
    oldest[{{"partition", partition}}] = seconds;
  }
  f.oldest_wait.Publish(oldest);
  f.nodes.Publish(ByPartitionState(stats.nodes));
  f.cpus.Publish(Resources(stats.resources, false));
  f.gpus.Publish(Resources(stats.resources, true));
  f.diag_jobs.Publish(DiagJobs(*diag));
  for (size_t i = 0; i < std::size(kDiagGauges); ++i) {
    f.diag[i].Publish({{{}, kDiagGauges[i].value(*diag)}});
  }
  for (double wait : NewStartWaits(jobs->jobs, &started_, !primed_)) f.start_wait.Observe(wait);
  primed_ = true;
  f.collections.Add({{"result", "ok"}}).Increment();
}

}  // namespace tidepool::syncer

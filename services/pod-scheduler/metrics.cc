#include "metrics.h"

#include <string>

#include "common/metrics.h"

namespace tidepool::podsched {
namespace {

constexpr char kService[] = "pod-scheduler";

std::string Name(absl::string_view what) { return common::MetricName(kService, what); }

}  // namespace

SchedulerMetrics::SchedulerMetrics(prometheus::Registry& registry)
    : pods_(prometheus::BuildGauge()
                .Name(Name("pods"))
                .Help("Pods naming this scheduler, by state (pending: not bound yet, bound)")
                .Register(registry)),
      pending_(pods_.Add({{"state", "pending"}})),
      bound_(pods_.Add({{"state", "bound"}})),
      bind_latency_(prometheus::BuildHistogram()
                        .Name(Name("bind_latency_seconds"))
                        .Help("From a pod's creation to its binding to the Node Slurm chose")
                        .Register(registry)
                        .Add({}, prometheus::Histogram::BucketBoundaries{0.1, 0.25, 0.5, 1, 2.5, 5,
                                                                         10, 30, 60, 300, 1800})),
      submitted_(prometheus::BuildCounter()
                     .Name(Name("jobs_submitted_total"))
                     .Help("Placeholder jobs submitted through slurm-syncer")
                     .Register(registry)
                     .Add({})),
      cancelled_(prometheus::BuildCounter()
                     .Name(Name("jobs_cancelled_total"))
                     .Help("Placeholder jobs cancelled (pod gone or finished, stale, duplicate)")
                     .Register(registry)
                     .Add({})),
      pods_deleted_(prometheus::BuildCounter()
                        .Name(Name("pods_deleted_total"))
                        .Help("Pods deleted because their job ended, was requeued or is gone")
                        .Register(registry)
                        .Add({})),
      errors_(prometheus::BuildCounter()
                  .Name(Name("errors_total"))
                  .Help("Failures by kind (submit, cancel, bind, annotate, delete, status, "
                        "invalid_placement)")
                  .Register(registry)),
      leader_(common::RegisterLeaderGauge(registry, kService)) {
  common::AddZeroSeries(
      errors_,
      {{"kind",
        {"submit", "cancel", "bind", "annotate", "delete", "status", "invalid_placement"}}});
}

void SchedulerMetrics::SetPods(double pending, double bound) {
  pending_.Set(pending);
  bound_.Set(bound);
}

void SchedulerMetrics::ObserveBind(double seconds_since_creation) {
  bind_latency_.Observe(seconds_since_creation);
}

void SchedulerMetrics::CountError(absl::string_view kind) {
  errors_.Add({{"kind", std::string(kind)}}).Increment();
}

}  // namespace tidepool::podsched

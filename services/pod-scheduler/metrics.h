#pragma once

// pod-scheduler's metrics (tidepool_pod_scheduler_*): pods waiting and bound, the time
// from a pod's creation to its binding, jobs submitted and cancelled, errors by kind.

#include "absl/strings/string_view.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace tidepool::podsched {

class SchedulerMetrics {
 public:
  explicit SchedulerMetrics(prometheus::Registry& registry);

  void SetPods(double pending, double bound);
  void ObserveBind(double seconds_since_creation);
  void CountSubmitted() { submitted_.Increment(); }
  void CountCancelled() { cancelled_.Increment(); }
  void CountPodDeleted() { pods_deleted_.Increment(); }
  // kind: submit, cancel, bind, annotate, delete, status, invalid_placement, watch.
  void CountError(absl::string_view kind);
  prometheus::Gauge& leader() { return leader_; }  // for k8s::LeadershipOptions

 private:
  prometheus::Family<prometheus::Gauge>& pods_;
  prometheus::Gauge& pending_;
  prometheus::Gauge& bound_;
  prometheus::Histogram& bind_latency_;
  prometheus::Counter& submitted_;
  prometheus::Counter& cancelled_;
  prometheus::Counter& pods_deleted_;
  prometheus::Family<prometheus::Counter>& errors_;
  prometheus::Gauge& leader_;
};

}  // namespace tidepool::podsched

#pragma once

// tidepool_nodeset_controller_* metrics. Labels are bounded (results, causes), never a
// NodeSet, pod or node name.

#include "absl/strings/string_view.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace tidepool::nodeset {

class ControllerMetrics {
 public:
  explicit ControllerMetrics(prometheus::Registry& registry);

  // One sync of one NodeSet key: result "success" or "error".
  void CountSync(absl::string_view result, double seconds);
  void CountPodCreated() { pods_created_.Increment(); }
  // cause: scale-in, update, not-feasible.
  void CountPodDeleted(absl::string_view cause);
  void CountDrainRequested(absl::string_view cause);
  void CountUndrain() { undrains_.Increment(); }
  prometheus::Gauge& leader() { return leader_; }  // for k8s::LeadershipOptions
  void SetSlurmReachable(bool reachable) { slurm_reachable_.Set(reachable ? 1 : 0); }
  // The gate guard (gate_guard.h): a gate held True, and whether it holds them now.
  void CountGateHeld() { gates_held_.Increment(); }
  void SetSyncerAbsent(bool absent) { syncer_absent_.Set(absent ? 1 : 0); }

 private:
  prometheus::Family<prometheus::Counter>& syncs_;
  prometheus::Histogram& sync_duration_;
  prometheus::Counter& pods_created_;
  prometheus::Family<prometheus::Counter>& pods_deleted_;
  prometheus::Family<prometheus::Counter>& drains_;
  prometheus::Counter& undrains_;
  prometheus::Gauge& leader_;
  prometheus::Gauge& slurm_reachable_;
  prometheus::Counter& gates_held_;
  prometheus::Gauge& syncer_absent_;
};

}  // namespace tidepool::nodeset

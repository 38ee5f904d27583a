#pragma once

// While Slurm is out of slurm-syncer's sight (slurmrestd or slurmctld unreachable, the node
// feed unavailable), the False SlurmNodeInUse gates it wrote go stale: a person may resume
// a drained node with scontrol and Slurm start jobs there, and kubectl drain would evict
// the pod. Once the feed has been unavailable for the grace, the leader holds every such
// gate True (reason SlurmUnreachable, tidepool/gate_hold.h), looking again every period;
// with Slurm back, the two-way sync (which syncs every node after an outage) writes what
// Slurm says. One key on the controller runtime, so Leadership starts and stops it with
// the two directions.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "k8s/client.h"
#include "k8s/controller.h"
#include "k8s_observation.h"
#include "prometheus/counter.h"

namespace tidepool::syncer {

struct OutageGateHoldOptions {
  std::string field_manager;
  absl::Duration period = absl::Seconds(2);
  absl::Duration grace = absl::Seconds(10);
};

// How long Slurm has been out of sight, from successive looks at the feed.
class OutageClock {
 public:
  // Records one look; true once the feed has been unavailable at every look for `grace`.
  bool Observe(bool feed_current, absl::Time now, absl::Duration grace);
  bool out_of_sight() const { return since_.has_value(); }

 private:
  std::optional<absl::Time> since_;  // the first look that found it unavailable
};

class OutageGateHold : public k8s::Reconciler {
 public:
  struct Sources {
    std::function<absl::Status()> slurm_current;  // the node feed's Current()
    std::function<bool()> caches_synced;
    std::function<absl::Status()> caches_current;
    // The slurmd pods of the cluster's NodeSets (never a look-alike by labels).
    std::function<std::vector<PodObservation>()> cluster_pods;
  };
  // `client`, `clock` and `held` outlive the hold.
  OutageGateHold(k8s::Client& client, Sources sources, common::Clock* clock,
                 prometheus::Counter& held, OutageGateHoldOptions options);

  absl::StatusOr<k8s::ReconcileResult> Reconcile(const std::string& key) override;

  // What Leadership starts and stops.
  k8s::Controller& runtime() { return runtime_; }

 private:
  // Applies the gate True on every cluster pod whose gate is False; how many.
  int HoldGates();

  k8s::Client& client_;
  const Sources sources_;
  common::Clock* const clock_;
  prometheus::Counter& held_;
  const OutageGateHoldOptions options_;
  OutageClock outage_;  // only the runtime's one worker touches it
  bool holding_ = false;
  k8s::Controller runtime_;
};

}  // namespace tidepool::syncer

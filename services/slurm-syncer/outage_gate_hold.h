#pragma once

// While Slurm is out of slurm-syncer's sight (slurmrestd or slurmctld unreachable, the node
// feed unavailable), the False SlurmNodeInUse gates it wrote go stale: a person may resume
// a drained node with scontrol and Slurm start jobs there, and kubectl drain would evict
// the pod. Once the feed has been unavailable for the grace, the leader holds every such
// gate True (reason SlurmUnreachable, tidepool/gate_hold.h), looking again every period;
// with Slurm back, the two-way sync (which syncs every node after an outage) writes what
// Slurm says. This is the decision; the looking and holding is the shared gate holder's
// (tidepool/gate_holder.h), one key on the controller runtime, so Leadership starts and
// stops it with the two directions.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "k8s/client.h"
#include "k8s/controller.h"
#include "prometheus/counter.h"
#include "tidepool/gate_holder.h"

namespace tidepool::syncer {

struct OutageGateHoldOptions {
  std::string field_manager;
  absl::Duration period = absl::Seconds(2);
  absl::Duration grace = absl::Seconds(10);
};

// How long Slurm has been out of sight, from successive looks at the feed. Kept apart from
// the feed on purpose: the feed stores no time of its outage (MarkUnavailable's time only
// goes out in the update it publishes), that time is the poller's real clock at the start
// of the failing poll, not the clock the hold is given, and the feed is also not current
// before its first poll ends, which has no such time at all.
class OutageClock {
 public:
  // Records one look; true once the feed has been unavailable at every look for `grace`.
  bool Observe(bool feed_current, absl::Time now, absl::Duration grace);
  bool out_of_sight() const { return since_.has_value(); }

 private:
  std::optional<absl::Time> since_;  // the first look that found it unavailable
};

class OutageGateHold {
 public:
  struct Sources {
    std::function<absl::Status()> slurm_current;  // the node feed's Current()
    std::function<bool()> caches_synced;
    std::function<absl::Status()> caches_current;
    // The slurmd pods of the cluster's NodeSets (never a look-alike by labels) whose gate
    // is False.
    std::function<std::vector<api::GateHoldCandidate>()> gate_false_pods;
  };
  // `client`, `clock` and `held` outlive the hold.
  OutageGateHold(k8s::Client& client, Sources sources, common::Clock* clock,
                 prometheus::Counter& held, OutageGateHoldOptions options);

  // What Leadership starts and stops.
  k8s::Controller& runtime() { return holder_.runtime(); }

 private:
  // Whether Slurm has been out of sight for the grace, at this look.
  bool OutOfSightForGrace();
  // Holding started or stopped.
  void OnChange(bool holding) const;

  const Sources sources_;
  common::Clock* const clock_;
  const OutageGateHoldOptions options_;
  OutageClock outage_;  // only the holder's one worker touches these
  absl::Status last_look_;
  api::GateHolder holder_;
};

}  // namespace tidepool::syncer

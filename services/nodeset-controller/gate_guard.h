#pragma once

// Holds slurmd pods' SlurmNodeInUse readiness gates True while slurm-syncer has no leader
// (gate_hold.h says why). One key, looked at every period while this replica leads: read
// slurm-syncer's Lease; once it has had no live holder for the grace, apply the gate True
// on each NodeSet pod whose gate is False. This is the decision; the looking and holding is
// the shared gate holder's (tidepool/gate_holder.h), on the controller runtime, so
// Leadership starts and stops it with the NodeSet workers.

#include <optional>
#include <string>

#include "absl/time/time.h"
#include "common/clock.h"
#include "k8s/client.h"
#include "k8s/controller.h"
#include "k8s/informer.h"
#include "k8s/leader_election.h"
#include "metrics.h"
#include "tidepool/gate_holder.h"
#include "tidepool/served_cluster.h"

namespace tidepool::nodeset {

struct GateGuardOptions {
  std::string lease_namespace;
  std::string lease_name;  // slurm-syncer's
  std::string field_manager;
  absl::Duration period = absl::Seconds(2);
  absl::Duration grace = absl::Seconds(10);
  // Only this cluster's pods: another cluster's are its own slurm-syncer's to watch.
  api::ServedCluster served;
};

class GateGuard {
 public:
  // Everything passed outlives the guard; `pods` is the informer of slurmd pods.
  GateGuard(k8s::Client& client, k8s::LeaseClient& leases, k8s::Informer& pods,
            common::Clock* clock, ControllerMetrics& metrics, GateGuardOptions options);

  // What Leadership starts and stops.
  k8s::Controller& runtime() { return holder_.runtime(); }

 private:
  // Whether slurm-syncer is absent now; nullopt when its Lease could not be read.
  std::optional<bool> SyncerAbsentNow();
  // slurm-syncer turned absent, or back.
  void OnChange(bool absent);
  // Reads the Lease into lease_; false when it could not be read (nothing is decided).
  bool ObserveSyncerLease();
  void LogSyncerAbsent() const;

  k8s::LeaseClient& leases_;
  common::Clock* const clock_;
  const GateGuardOptions options_;
  ControllerMetrics& metrics_;
  k8s::LeaseObservation lease_;  // only the holder's one worker touches it
  api::GateHolder holder_;
};

}  // namespace tidepool::nodeset

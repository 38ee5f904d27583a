#pragma once

// Holds slurmd pods' SlurmNodeInUse readiness gates True while slurm-syncer has no leader
// (gate_hold.h says why). One key, looked at every period while this replica leads: read
// slurm-syncer's Lease; once it has had no live holder for the grace, apply the gate True
// on each NodeSet pod whose gate is False. Runs on the controller runtime, so Leadership
// starts and stops it with the NodeSet workers.

#include <string>

#include "absl/time/time.h"
#include "common/clock.h"
#include "k8s/client.h"
#include "k8s/controller.h"
#include "k8s/informer.h"
#include "k8s/leader_election.h"
#include "metrics.h"

namespace tidepool::nodeset {

struct GateGuardOptions {
  std::string lease_namespace;
  std::string lease_name;  // slurm-syncer's
  std::string field_manager;
  absl::Duration period = absl::Seconds(2);
  absl::Duration grace = absl::Seconds(10);
};

class GateGuard : public k8s::Reconciler {
 public:
  // Everything passed outlives the guard; `pods` is the informer of slurmd pods.
  GateGuard(k8s::Client& client, k8s::LeaseClient& leases, k8s::Informer& pods,
            common::Clock* clock, ControllerMetrics& metrics, GateGuardOptions options);

  absl::StatusOr<k8s::ReconcileResult> Reconcile(const std::string& key) override;

  // What Leadership starts and stops.
  k8s::Controller& runtime() { return runtime_; }

 private:
  // Reads the Lease into lease_; false when it could not be read (nothing is decided).
  bool ObserveSyncerLease();
  void LogSyncerAbsent() const;
  // Applies the gate True on every pod whose gate is False; how many.
  int HoldGates();

  k8s::Client& client_;
  k8s::LeaseClient& leases_;
  k8s::Informer& pods_;
  common::Clock* const clock_;
  const GateGuardOptions options_;
  ControllerMetrics& metrics_;
  k8s::LeaseObservation lease_;  // only the runtime's one worker touches it
  bool absent_ = false;
  k8s::Controller runtime_;
};

}  // namespace tidepool::nodeset

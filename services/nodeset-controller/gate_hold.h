#pragma once

// Whether slurm-syncer is there to keep the slurmd pods' readiness gates current: while it
// has no leader, nodeset-controller holds their False gates True (tidepool/gate_hold.h).

#include <string>

#include "absl/time/time.h"
#include "k8s/leader_election.h"
#include "tidepool/pod_view.h"

namespace tidepool::nodeset {

// Records that slurm-syncer's Lease does not exist (as ObserveLease records one that does):
// the time moves only when this is news.
void ObserveMissingLease(absl::Time now, k8s::LeaseObservation& observation);

// True once slurm-syncer's Lease has had no live holder for `grace`: released (a syncer
// stopping), missing, or not renewed within its own duration (a syncer killed). A Lease
// that changed within `grace` is not absent yet, so a rollout's handover (release, then
// the next replica's acquire) holds nothing. Times are this process's observation times,
// never the renewTime another machine wrote.
bool SyncerAbsent(const k8s::LeaseObservation& lease, absl::Duration grace, absl::Time now);

// Why an absent slurm-syncer is absent, for the log: its Lease "missing", "released" or
// "expired" (not renewed within its duration).
std::string SyncerAbsenceCause(const k8s::LeaseObservation& lease);

// True for a pod of a NodeSet (labelled and controlled by one) whose gate is False: what
// the guard holds.
bool HoldsGateOf(const api::PodView& pod);

}  // namespace tidepool::nodeset

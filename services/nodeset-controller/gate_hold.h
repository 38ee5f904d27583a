#pragma once

// Whether slurm-syncer is there to keep the slurmd pods' readiness gates true, and the
// write that holds a gate while it is not. A gate slurm-syncer turned False ("drained and
// idle: the pod may be evicted") stays False while no syncer runs, though a person may
// resume the Slurm node meanwhile and Slurm start jobs there: an eviction would then end
// them. So while slurm-syncer has no leader, nodeset-controller turns such gates True
// (not evictable); the syncer, back, writes what Slurm says.

#include <optional>
#include <string>

#include "absl/time/time.h"
#include "k8s/leader_election.h"
#include "tidepool/pod_view.h"

namespace tidepool::nodeset {

inline constexpr char kSyncerAbsentReason[] = "SlurmSyncerAbsent";

// Records that slurm-syncer's Lease does not exist (as ObserveLease records one that does):
// the time moves only when this is news.
void ObserveMissingLease(absl::Time now, k8s::LeaseObservation& observation);

// True once slurm-syncer's Lease has had no live holder for `grace`: released (a syncer
// stopping), missing, or not renewed within its own duration (a syncer killed). A Lease
// that changed within `grace` is not absent yet, so a rollout's handover (release, then
// the next replica's acquire) holds nothing. Times are this process's observation times,
// never the renewTime another machine wrote.
bool SyncerAbsent(const k8s::LeaseObservation& lease, absl::Duration grace, absl::Time now);

// The status apply that turns the pod's SlurmNodeInUse gate True, for a pod of a NodeSet
// whose gate is False; nullopt for any other pod.
std::optional<std::string> GateHoldApplyBody(const api::PodView& pod, absl::Time now);

}  // namespace tidepool::nodeset

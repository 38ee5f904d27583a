#pragma once

// Holding a slurmd pod's SlurmNodeInUse readiness gate True while nothing keeps it current.
// slurm-syncer turns the gate False once the pod's Slurm node is drained (or down) and
// idle: from then on kubectl drain may evict the pod. That False is only as fresh as
// slurm-syncer's view of Slurm; while slurm-syncer has no leader, or Slurm is out of its
// sight, a person may resume the node and Slurm start jobs there, and an eviction would end
// them. So whoever notices turns such a gate True (not evictable) with a reason naming why;
// slurm-syncer, seeing Slurm again, writes what Slurm says.

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "k8s/client.h"
#include "k8s/conditions.h"

namespace tidepool::api {

struct GateHoldCause {
  const char* reason;
  const char* message;
};

// nodeset-controller: slurm-syncer's Lease has had no live holder.
inline constexpr GateHoldCause kSyncerAbsentHold = {
    "SlurmSyncerAbsent",
    "slurm-syncer is not running: whether jobs run on the Slurm node is not known, so the pod "
    "is not evicted until slurm-syncer is back"};
// slurm-syncer: its node feed has been unavailable (slurmrestd or slurmctld out of reach).
inline constexpr GateHoldCause kSlurmUnreachableHold = {
    "SlurmUnreachable",
    "slurm-syncer cannot reach Slurm: whether jobs run on the Slurm node is not known, so the "
    "pod is not evicted until Slurm can be read again"};

// True when the pod's gate (in `conditions`, by type) is False: the one a hold turns.
bool GateFalse(const std::map<std::string, k8s::Condition>& conditions);

// The status apply that turns pod `ns`/`name`'s gate True for `cause`.
std::string GateHoldApplyBody(const std::string& ns, const std::string& name,
                              const GateHoldCause& cause, absl::Time now);

// Applies that body as `field_manager` (forced: the gate's writer may be another manager)
// when the gate is False. True when written, false when there was nothing to hold (gate
// not False, or the pod gone); the error of the write otherwise.
absl::StatusOr<bool> HoldGate(k8s::Client& client, const std::string& ns, const std::string& name,
                              const std::map<std::string, k8s::Condition>& conditions,
                              const GateHoldCause& cause, const std::string& field_manager,
                              absl::Time now);

}  // namespace tidepool::api

#include "gate_hold.h"

#include <algorithm>

#include "k8s/conditions.h"
#include "k8s/object_json.h"
#include "tidepool/contract.h"

namespace tidepool::nodeset {

void ObserveMissingLease(absl::Time now, k8s::LeaseObservation& observation) {
  if (!observation.record.has_value() && observation.changed_at != absl::InfinitePast()) return;
  observation.record.reset();
  observation.changed_at = now;
}

bool SyncerAbsent(const k8s::LeaseObservation& lease, absl::Duration grace, absl::Time now) {
  const absl::Duration unchanged = now - lease.changed_at;
  if (unchanged < grace) return false;
  if (!lease.record.has_value() || lease.record->holder_identity.empty()) return true;
  return unchanged > absl::Seconds(std::max<int64_t>(lease.record->lease_duration_seconds, 0));
}

std::optional<std::string> GateHoldApplyBody(const api::PodView& pod, absl::Time now) {
  if (pod.node_set.empty() || pod.controller_uid.empty()) return std::nullopt;
  auto gate = pod.conditions.find(api::kSlurmNodeInUseCondition);
  if (gate == pod.conditions.end() || gate->second.status != "False") return std::nullopt;
  return k8s::ConditionsApplyBody(
      "Pod", pod.ns, pod.name,
      {{.type = api::kSlurmNodeInUseCondition,
        .status = "True",
        .reason = kSyncerAbsentReason,
        .message = "slurm-syncer is not running: whether jobs run on the Slurm node is not known, "
                   "so the pod is not evicted until slurm-syncer is back",
        .last_transition_time = k8s::FormatApiTime(now)}});
}

}  // namespace tidepool::nodeset

#include "gate_hold.h"

#include <algorithm>

#include "tidepool/gate_hold.h"

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

std::string SyncerAbsenceCause(const k8s::LeaseObservation& lease) {
  if (!lease.record.has_value()) return "missing";
  return lease.record->holder_identity.empty() ? "released" : "expired";
}

bool HoldsGateOf(const api::PodView& pod) {
  return !pod.node_set.empty() && !pod.controller_uid.empty() && api::GateFalse(pod.conditions);
}

}  // namespace tidepool::nodeset

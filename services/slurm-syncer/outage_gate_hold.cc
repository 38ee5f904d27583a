#include "outage_gate_hold.h"

#include <utility>

#include "common/log.h"
#include "tidepool/gate_hold.h"

namespace tidepool::syncer {
namespace {

constexpr char kKey[] = "slurm-outage";

}  // namespace

bool OutageClock::Observe(bool feed_current, absl::Time now, absl::Duration grace) {
  if (feed_current) {
    since_.reset();
    return false;
  }
  if (!since_.has_value()) since_ = now;
  return now - *since_ >= grace;
}

OutageGateHold::OutageGateHold(k8s::Client& client, Sources sources, common::Clock* clock,
                               prometheus::Counter& held, OutageGateHoldOptions options)
    : client_(client),
      sources_(std::move(sources)),
      clock_(clock),
      held_(held),
      options_(std::move(options)),
      runtime_(*this, clock,
               {.name = "outage-gate-hold",
                .workers = 1,
                .caches_synced = sources_.caches_synced,
                .caches_current = sources_.caches_current,
                .all_keys = [] { return std::vector<std::string>{kKey}; }}) {}

absl::StatusOr<k8s::ReconcileResult> OutageGateHold::Reconcile(const std::string& /*key*/) {
  const k8s::ReconcileResult again{.requeue_after = options_.period};
  const absl::Status current = sources_.slurm_current();
  const bool hold = outage_.Observe(current.ok(), clock_->Now(), options_.grace);
  if (hold != holding_) {
    holding_ = hold;
    if (hold) {
      common::LogWarn("slurm_out_of_sight_gates_held",
                      {{"grace", options_.grace},
                       {"error", current},
                       {"action",
                        "slurmd pods' SlurmNodeInUse gates held True (not evictable) until "
                        "Slurm can be read again"}});
    } else {
      common::LogInfo("slurm_in_sight_gates_released",
                      {{"action", "the two-way sync writes each gate from Slurm's state"}});
    }
  }
  if (hold) {
    if (const int held = HoldGates(); held > 0) {
      common::LogWarn("gates_held", {{"pods", static_cast<int64_t>(held)}});
    }
  }
  return again;
}

int OutageGateHold::HoldGates() {
  int held = 0;
  for (const PodObservation& pod : sources_.cluster_pods()) {
    absl::StatusOr<bool> written =
        api::HoldGate(client_, pod.ns, pod.name, pod.conditions, api::kSlurmUnreachableHold,
                      options_.field_manager, clock_->Now());
    if (!written.ok()) {
      common::LogWarn("gate_hold_failed",
                      {{"pod", pod.ns + "/" + pod.name}, {"error", written.status()}});
      continue;
    }
    if (!*written) continue;
    held_.Increment();
    ++held;
  }
  return held;
}

}  // namespace tidepool::syncer

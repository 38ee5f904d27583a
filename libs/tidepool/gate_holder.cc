#include "tidepool/gate_holder.h"

#include <utility>

#include "common/log.h"

namespace tidepool::api {

std::vector<GateHoldCandidate> GateFalseCandidates(
    const std::vector<k8s::CachedObjectPtr>& pods,
    const std::function<bool(const PodView&)>& keep) {
  std::vector<GateHoldCandidate> candidates;
  for (const k8s::CachedObjectPtr& object : pods) {
    if (object == nullptr) continue;
    std::optional<PodView> parsed;
    const PodView* pod = PodViewIn(*object, parsed);
    if (pod == nullptr || !GateFalse(pod->conditions) || (keep && !keep(*pod))) continue;
    candidates.push_back({.ns = pod->ns, .name = pod->name, .conditions = pod->conditions});
  }
  return candidates;
}

GateHolder::GateHolder(k8s::Client& client, common::Clock* clock, Hooks hooks,
                       GateHolderOptions options)
    : client_(client),
      clock_(clock),
      hooks_(std::move(hooks)),
      options_(std::move(options)),
      runtime_(*this, clock,
               {.name = options_.name,
                .workers = 1,
                .caches_synced = options_.caches_synced,
                .caches_current = options_.caches_current,
                .all_keys = [key = options_.key] { return std::vector<std::string>{key}; }}) {}

absl::StatusOr<k8s::ReconcileResult> GateHolder::Reconcile(const std::string& /*key*/) {
  const k8s::ReconcileResult again{.requeue_after = options_.period};
  const std::optional<bool> hold = hooks_.should_hold();
  if (!hold.has_value()) return again;
  if (*hold != holding_) {
    holding_ = *hold;
    if (hooks_.on_change) hooks_.on_change(*hold);
  }
  if (*hold) {
    if (const int held = HoldGates(); held > 0) {
      common::LogWarn("gates_held", {{"pods", static_cast<int64_t>(held)}});
    }
  }
  return again;
}

int GateHolder::HoldGates() {
  int held = 0;
  for (const GateHoldCandidate& pod : hooks_.candidates()) {
    absl::StatusOr<bool> written = HoldGate(client_, pod.ns, pod.name, pod.conditions,
                                            options_.cause, options_.field_manager, clock_->Now());
    if (!written.ok()) {
      common::LogWarn("gate_hold_failed",
                      {{"pod", pod.ns + "/" + pod.name}, {"error", written.status()}});
      continue;
    }
    if (!*written) continue;
    if (hooks_.count_held) hooks_.count_held();
    ++held;
  }
  return held;
}

}  // namespace tidepool::api

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
    : sources_(std::move(sources)),
      clock_(clock),
      options_(std::move(options)),
      holder_(client, clock,
              {.should_hold = [this] { return std::optional<bool>(OutOfSightForGrace()); },
               .on_change = [this](bool holding) { OnChange(holding); },
               .candidates = [this] { return sources_.gate_false_pods(); },
               .count_held = [&held] { held.Increment(); }},
              {.name = "outage-gate-hold",
               .key = kKey,
               .cause = api::kSlurmUnreachableHold,
               .field_manager = options_.field_manager,
               .period = options_.period,
               .caches_synced = sources_.caches_synced,
               .caches_current = sources_.caches_current}) {}

bool OutageGateHold::OutOfSightForGrace() {
  last_look_ = sources_.slurm_current();
  return outage_.Observe(last_look_.ok(), clock_->Now(), options_.grace);
}

void OutageGateHold::OnChange(bool holding) const {
  if (holding) {
    common::LogWarn("slurm_out_of_sight_gates_held",
                    {{"grace", options_.grace},
                     {"error", last_look_},
                     {"action",
                      "slurmd pods' SlurmNodeInUse gates held True (not evictable) until "
                      "Slurm can be read again"}});
  } else {
    common::LogInfo("slurm_in_sight_gates_released",
                    {{"action", "the two-way sync writes each gate from Slurm's state"}});
  }
}

}  // namespace tidepool::syncer

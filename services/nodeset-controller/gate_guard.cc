#include "gate_guard.h"

#include <utility>

#include "common/log.h"
#include "gate_hold.h"
#include "tidepool/gate_hold.h"

namespace tidepool::nodeset {
namespace {

constexpr char kKey[] = "slurm-syncer";
constexpr absl::Duration kLeaseReadTimeout = absl::Seconds(5);

}  // namespace

GateGuard::GateGuard(k8s::Client& client, k8s::LeaseClient& leases, k8s::Informer& pods,
                     common::Clock* clock, ControllerMetrics& metrics, GateGuardOptions options)
    : leases_(leases),
      clock_(clock),
      options_(std::move(options)),
      metrics_(metrics),
      holder_(client, clock,
              {.should_hold = [this] { return SyncerAbsentNow(); },
               .on_change = [this](bool absent) { OnChange(absent); },
               .candidates =
                   [this, &pods] {
                     return api::GateFalseCandidates(pods.List(), [this](const api::PodView& pod) {
                       return HoldsGateOf(pod) &&
                              options_.served.Serves(pod.ns + "/" + pod.cluster);
                     });
                   },
               .count_held = [&metrics] { metrics.CountGateHeld(); }},
              {.name = "gate-guard",
               .key = kKey,
               .cause = api::kSyncerAbsentHold,
               .field_manager = options_.field_manager,
               .period = options_.period,
               .caches_synced = [&pods] { return pods.HasSynced(); },
               .caches_current = [&pods] { return k8s::CachesCurrent({&pods}); }}) {}

std::optional<bool> GateGuard::SyncerAbsentNow() {
  // An unreadable Lease decides nothing: gates stay as they are until the next look.
  if (!ObserveSyncerLease()) return std::nullopt;
  return SyncerAbsent(lease_, options_.grace, clock_->Now());
}

void GateGuard::OnChange(bool absent) {
  metrics_.SetSyncerAbsent(absent);
  if (absent) {
    LogSyncerAbsent();
  } else {
    common::LogInfo("slurm_syncer_back",
                    {{"lease", options_.lease_namespace + "/" + options_.lease_name}});
  }
}

void GateGuard::LogSyncerAbsent() const {
  const std::string lease = options_.lease_namespace + "/" + options_.lease_name;
  const std::string cause = SyncerAbsenceCause(lease_);
  common::LogWarn("slurm_syncer_absent",
                  {{"lease", lease},
                   {"cause", cause},
                   {"action",
                    "slurmd pods' SlurmNodeInUse gates held True (not evictable) until "
                    "slurm-syncer leads again"}});
  if (cause == "missing") {
    // Looked for in the wrong namespace, the Lease is never found: every gate held for good.
    common::LogWarn("syncer_lease_missing",
                    {{"lease", lease},
                     {"hint",
                      "if slurm-syncer runs in another namespace, pass it as "
                      "--syncer_lease_namespace (chart value syncerNamespace)"}});
  }
}

bool GateGuard::ObserveSyncerLease() {
  absl::StatusOr<std::string> json =
      leases_.Get(options_.lease_namespace, options_.lease_name, kLeaseReadTimeout);
  const absl::Time now = clock_->Now();
  if (absl::IsNotFound(json.status())) {
    ObserveMissingLease(now, lease_);
    return true;
  }
  absl::StatusOr<k8s::LeaseObject> lease =
      json.ok() ? k8s::ParseLease(*json) : absl::StatusOr<k8s::LeaseObject>(json.status());
  if (!lease.ok()) {
    common::LogWarn("syncer_lease_unread", {{"error", lease.status()}});
    return false;
  }
  k8s::ObserveLease(lease->record, now, lease_);
  return true;
}

}  // namespace tidepool::nodeset

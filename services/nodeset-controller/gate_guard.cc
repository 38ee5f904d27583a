#include "gate_guard.h"

#include <utility>
#include <vector>

#include "common/log.h"
#include "gate_hold.h"
#include "tidepool/gate_hold.h"
#include "tidepool/pod_view.h"

namespace tidepool::nodeset {
namespace {

constexpr char kKey[] = "slurm-syncer";
constexpr absl::Duration kLeaseReadTimeout = absl::Seconds(5);

}  // namespace

GateGuard::GateGuard(k8s::Client& client, k8s::LeaseClient& leases, k8s::Informer& pods,
                     common::Clock* clock, ControllerMetrics& metrics, GateGuardOptions options)
    : client_(client),
      leases_(leases),
      pods_(pods),
      clock_(clock),
      options_(std::move(options)),
      metrics_(metrics),
      runtime_(*this, clock,
               {.name = "gate-guard",
                .workers = 1,
                .caches_synced = [&pods] { return pods.HasSynced(); },
                .caches_current = [&pods] { return k8s::CachesCurrent({&pods}); },
                .all_keys = [] { return std::vector<std::string>{kKey}; }}) {}

absl::StatusOr<k8s::ReconcileResult> GateGuard::Reconcile(const std::string& /*key*/) {
  const k8s::ReconcileResult again{.requeue_after = options_.period};
  // An unreadable Lease decides nothing: gates stay as they are until the next look.
  if (!ObserveSyncerLease()) return again;
  const bool absent = SyncerAbsent(lease_, options_.grace, clock_->Now());
  if (absent != absent_) {
    absent_ = absent;
    metrics_.SetSyncerAbsent(absent);
    if (absent) {
      LogSyncerAbsent();
    } else {
      common::LogInfo("slurm_syncer_back",
                      {{"lease", options_.lease_namespace + "/" + options_.lease_name}});
    }
  }
  if (absent) {
    if (const int held = HoldGates(); held > 0) {
      common::LogWarn("gates_held", {{"pods", static_cast<int64_t>(held)}});
    }
  }
  return again;
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

int GateGuard::HoldGates() {
  int held = 0;
  for (const k8s::CachedObjectPtr& object : pods_.List()) {
    absl::StatusOr<api::PodView> pod = api::PodViewOf(*object);
    if (!pod.ok() || !HoldsGateOf(*pod)) continue;
    absl::StatusOr<bool> written =
        api::HoldGate(client_, pod->ns, pod->name, pod->conditions, api::kSyncerAbsentHold,
                      options_.field_manager, clock_->Now());
    if (!written.ok()) {
      common::LogWarn("gate_hold_failed", {{"pod", pod->Key()}, {"error", written.status()}});
      continue;
    }
    if (!*written) continue;
    metrics_.CountGateHeld();
    ++held;
  }
  return held;
}

}  // namespace tidepool::nodeset

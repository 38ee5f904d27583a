#include "gate_guard.h"

#include <optional>
#include <utility>
#include <vector>

#include "common/log.h"
#include "common/metrics.h"
#include "gate_hold.h"
#include "k8s/resource.h"
#include "tidepool/pod_view.h"

namespace tidepool::nodeset {
namespace {

constexpr char kKey[] = "slurm-syncer";
constexpr absl::Duration kLeaseReadTimeout = absl::Seconds(5);

}  // namespace

GateGuard::GateGuard(k8s::Client& client, k8s::LeaseClient& leases, k8s::Informer& pods,
                     common::Clock* clock, prometheus::Registry& registry, GateGuardOptions options)
    : client_(client),
      leases_(leases),
      pods_(pods),
      clock_(clock),
      options_(std::move(options)),
      gates_held_(prometheus::BuildCounter()
                      .Name(common::MetricName("nodeset-controller", "gates_held_total"))
                      .Help("slurmd pods' SlurmNodeInUse gates turned True while slurm-syncer "
                            "had no leader")
                      .Register(registry)
                      .Add({})),
      syncer_absent_(prometheus::BuildGauge()
                         .Name(common::MetricName("nodeset-controller", "slurm_syncer_absent"))
                         .Help("1 while slurm-syncer's Lease has had no live holder for the "
                               "grace (its gates are held True), else 0")
                         .Register(registry)
                         .Add({})),
      runtime_(*this, clock,
               {.name = "gate-guard",
                .workers = 1,
                .caches_synced = [&pods] { return pods.HasSynced(); },
                .all_keys = [] { return std::vector<std::string>{kKey}; }}) {}

absl::StatusOr<k8s::ReconcileResult> GateGuard::Reconcile(const std::string& /*key*/) {
  const k8s::ReconcileResult again{.requeue_after = options_.period};
  // An unreadable Lease decides nothing: gates stay as they are until the next look.
  if (!ObserveSyncerLease()) return again;
  const bool absent = SyncerAbsent(lease_, options_.grace, clock_->Now());
  if (absent != absent_) {
    absent_ = absent;
    syncer_absent_.Set(absent ? 1 : 0);
    if (absent) {
      common::LogWarn("slurm_syncer_absent",
                      {{"lease", options_.lease_namespace + "/" + options_.lease_name},
                       {"action",
                        "slurmd pods' SlurmNodeInUse gates held True (not evictable) "
                        "until slurm-syncer leads again"}});
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
  const k8s::ApplyOptions apply{.field_manager = options_.field_manager, .force = true};
  int held = 0;
  for (const k8s::CachedObjectPtr& object : pods_.List()) {
    absl::StatusOr<api::PodView> pod = api::PodViewOf(*object);
    if (!pod.ok()) continue;
    std::optional<std::string> body = GateHoldApplyBody(*pod, clock_->Now());
    if (!body.has_value()) continue;
    absl::StatusOr<std::string> applied =
        client_.Apply(k8s::Pods(), pod->ns, pod->name, *body, apply, "status");
    if (!applied.ok()) {
      if (!absl::IsNotFound(applied.status())) {
        common::LogWarn("gate_hold_failed", {{"pod", pod->Key()}, {"error", applied.status()}});
      }
      continue;
    }
    gates_held_.Increment();
    ++held;
  }
  return held;
}

}  // namespace tidepool::nodeset

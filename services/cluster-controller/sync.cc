#include "sync.h"

#include <algorithm>
#include <utility>

#include "common/log.h"
#include "teardown.h"
#include "tidepool/resource_types.h"
#include "tidepool/resources.h"

namespace tidepool::cluster {
namespace {

// The sooner of two requeues (zero: none).
absl::Duration Sooner(absl::Duration a, absl::Duration b) {
  if (a <= absl::ZeroDuration()) return b;
  if (b <= absl::ZeroDuration()) return a;
  return std::min(a, b);
}

}  // namespace

ClusterReconciler::ClusterReconciler(k8s::Client& client, k8s::Informer& clusters,
                                     common::Clock* clock, std::string field_manager,
                                     std::vector<std::unique_ptr<ClusterStep>> steps,
                                     prometheus::Family<prometheus::Counter>& syncs,
                                     std::unique_ptr<ClusterTeardown> teardown)
    : client_(client),
      clusters_(clusters),
      clock_(clock),
      field_manager_(std::move(field_manager)),
      steps_(std::move(steps)),
      syncs_(syncs),
      teardown_(std::move(teardown)) {}

ClusterReconciler::~ClusterReconciler() = default;

absl::StatusOr<k8s::ReconcileResult> ClusterReconciler::Reconcile(const std::string& key) {
  // The runtime calls this only while leading and with synced caches.
  k8s::CachedObjectPtr cached = clusters_.Get(key);
  if (cached == nullptr) return k8s::ReconcileResult{};  // what it owns goes with it
  ClusterContext cluster{.key = key,
                         .cluster = cached,
                         .status = ReadStatus(cached->json),
                         .spec = api::ParseSlurmCluster(cached->json)};
  if (absl::StatusOr<k8s::ObjectReference> ref = k8s::ReferenceTo(cached->json); ref.ok()) {
    cluster.ref = *std::move(ref);
  }
  if (teardown_ != nullptr) {
    // Being deleted: nothing is applied any more; the daemons stop in order.
    if (cached->meta.deleting) return teardown_->Advance(cluster);
    if (absl::Status held = teardown_->EnsureFinalizer(cluster); !held.ok()) return held;
  }
  ClusterOutcome outcome{.generation = cached->meta.generation,
                         .config = {.applied_hash = cluster.status.config_hash}};
  k8s::ReconcileResult result;
  // A step that fails does not hold up the ones after it (each says in the outcome what it
  // waits for): a login Service over quota must not keep a scale-out from slurm.conf.
  absl::Status failed;
  for (const std::unique_ptr<ClusterStep>& step : steps_) {
    absl::StatusOr<k8s::ReconcileResult> stepped = step->Sync(cluster, outcome);
    if (!stepped.ok()) {
      common::LogDebug("cluster_step_failed",
                       {{"cluster", key}, {"step", step->name()}, {"error", stepped.status()}});
      if (failed.ok()) failed = stepped.status();
      continue;
    }
    result.requeue_after = Sooner(result.requeue_after, stepped->requeue_after);
  }
  if (!failed.ok()) {
    if (outcome.report_error) {
      if (absl::Status written = WriteStatus(cluster, outcome); !written.ok()) return written;
    }
    return failed;  // retried with backoff
  }
  const bool valid = outcome.auth.ready && outcome.config.rendered;
  syncs_.Add({{"result", valid ? "ok" : "invalid"}}).Increment();
  if (absl::Status written = WriteStatus(cluster, outcome); !written.ok()) return written;
  return result;
}

absl::Status ClusterReconciler::WriteStatus(const ClusterContext& cluster,
                                            const ClusterOutcome& outcome) {
  if (StatusUnchanged(outcome, cluster.status)) return absl::OkStatus();
  const k8s::CachedObject& object = *cluster.cluster;
  return client_
      .MergePatch(api::SlurmClusters(), object.meta.ns, object.meta.name,
                  StatusPatch(outcome, cluster.status, clock_->Now()),
                  {.field_manager = field_manager_}, "status")
      .status();
}

}  // namespace tidepool::cluster

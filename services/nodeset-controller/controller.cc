#include "controller.h"

#include <utility>

#include "common/log.h"
#include "status.h"
#include "tidepool/cluster_ref.h"
#include "tidepool/naming.h"
#include "tidepool/node_view.h"
#include "tidepool/resources.h"

namespace tidepool::nodeset {
namespace {

std::string Key(const std::string& ns, const std::string& name) { return ns + "/" + name; }

bool StatusChanged(const k8s::CachedObjectPtr& before, const k8s::CachedObjectPtr& after) {
  absl::StatusOr<tidepool::v1::NodeSetStatus> a = ParseStatus(before->json);
  absl::StatusOr<tidepool::v1::NodeSetStatus> b = ParseStatus(after->json);
  if (!a.ok() || !b.ok()) return a.ok() != b.ok();
  return !SameStatus(*a, *b);
}

std::string ClusterRefOf(const k8s::CachedObjectPtr& node_set) {
  return api::NodeSetClusterName(node_set->json).value_or("");
}

}  // namespace

NodeSetController::NodeSetController(SyncContext context, int workers)
    : context_(std::move(context)),
      runtime_(
          *this, context_.clock,
          {.name = "nodeset",
           .workers = workers,
           .caches_synced =
               [informers = context_.informers] {
                 return informers.node_sets->HasSynced() && informers.nodes->HasSynced() &&
                        informers.pods->HasSynced() && informers.clusters->HasSynced();
               },
           .caches_current =
               [informers = context_.informers] {
                 return k8s::CachesCurrent(
                     {informers.node_sets, informers.nodes, informers.pods, informers.clusters});
               },
           .all_keys = [informers = context_.informers] { return informers.node_sets->Keys(); },
           .on_result =
               [metrics = context_.metrics](const std::string& key,
                                            const absl::StatusOr<k8s::ReconcileResult>& result,
                                            absl::Duration took) {
                 const double seconds = absl::ToDoubleSeconds(took);
                 metrics->CountSync(result.ok() ? "success" : "error", seconds);
                 if (result.ok()) {
                   common::LogDebug("synced", {{"nodeset", key}, {"seconds", seconds}});
                 }
               }}) {}

absl::StatusOr<k8s::ReconcileResult> NodeSetController::Reconcile(const std::string& key) {
  // Another release's: its pods, drains, finalizer and status are that release's to manage.
  if (!Serves(key)) return k8s::ReconcileResult{};
  absl::StatusOr<SyncResult> result = SyncNodeSet(context_, key);
  if (!result.ok()) return result.status();
  return k8s::ReconcileResult{.requeue_after = result->requeue_after};
}

void NodeSetController::RegisterHandlers() {
  const Informers& informers = context_.informers;
  informers.node_sets->AddHandlers(
      {.on_add = [this](const k8s::CachedObjectPtr& o) { Enqueue(o->meta.Key()); },
       // A spec change, and also a status change: a sync compares the status it computes
       // with the cached one, which may lag its own last write (computed A, wrote A, then
       // computed B equal to the stale cached status and skipped the write, leaving A on
       // the server). When the cache catches up the key is looked at again, so the status
       // settles on what was observed last. Our own write costs one extra, writeless sync.
       .on_update =
           [this](const k8s::CachedObjectPtr& before, const k8s::CachedObjectPtr& after) {
             if (before->meta.generation != after->meta.generation ||
                 before->meta.deleting != after->meta.deleting || StatusChanged(before, after)) {
               Enqueue(after->meta.Key());
             }
           },
       // Its Nodes become free for a sibling NodeSet.
       .on_delete =
           [this](const k8s::CachedObjectPtr& o) { EnqueueCluster(o->meta.ns, ClusterRefOf(o)); }});
  informers.pods->AddHandlers(
      {.on_add = [this](const k8s::CachedObjectPtr& o) { EnqueueOwnerOf(o); },
       .on_update = [this](const k8s::CachedObjectPtr&,
                           const k8s::CachedObjectPtr& after) { EnqueueOwnerOf(after); },
       .on_delete = [this](const k8s::CachedObjectPtr& o) { EnqueueOwnerOf(o); }});
  informers.nodes->AddHandlers(
      {.on_add = [this](const k8s::CachedObjectPtr&) { EnqueueAll(); },
       .on_update =
           [this](const k8s::CachedObjectPtr& before, const k8s::CachedObjectPtr& after) {
             if (api::NodeInfoChanged(*before, *after)) EnqueueAll();
           },
       .on_delete = [this](const k8s::CachedObjectPtr&) { EnqueueAll(); }});
  auto cluster_changed = [this](const k8s::CachedObjectPtr& o) {
    EnqueueCluster(o->meta.ns, o->meta.name);
  };
  informers.clusters->AddHandlers(
      {.on_add = cluster_changed,
       .on_update = [cluster_changed](
                        const k8s::CachedObjectPtr&,
                        const k8s::CachedObjectPtr& after) { cluster_changed(after); },
       .on_delete = cluster_changed});
}

void NodeSetController::OnSlurmChange(const std::vector<std::string>& slurm_names, bool all) {
  if (all) {
    EnqueueAll();
    return;
  }
  for (const std::string& name : slurm_names) {
    for (const k8s::CachedObjectPtr& pod :
         context_.informers.pods->ListByLabel(api::kSlurmNodeLabel, name)) {
      EnqueueOwnerOf(pod);
    }
  }
}

bool NodeSetController::Serves(const std::string& key) const {
  k8s::CachedObjectPtr node_set = context_.informers.node_sets->Get(key);
  return node_set == nullptr ||
         context_.served.Serves(api::NodeSetClusterKey(node_set->meta.ns, node_set->json));
}

void NodeSetController::Enqueue(const std::string& key) { runtime_.Enqueue(key); }

void NodeSetController::EnqueueAll() { runtime_.EnqueueAll(); }

void NodeSetController::EnqueueCluster(const std::string& ns, const std::string& cluster) {
  for (const k8s::CachedObjectPtr& node_set : context_.informers.node_sets->ListNamespace(ns)) {
    if (ClusterRefOf(node_set) == cluster) Enqueue(node_set->meta.Key());
  }
}

void NodeSetController::EnqueueOwnerOf(const k8s::CachedObjectPtr& pod) {
  auto label = pod->meta.labels.find(api::kNodeSetLabel);
  if (label != pod->meta.labels.end()) Enqueue(Key(pod->meta.ns, label->second));
}

}  // namespace tidepool::nodeset

#pragma once

// The nodeset-controller on the controller runtime (k8s/controller.h): informers on
// NodeSets, Nodes, slurmd pods and SlurmClusters turn events into NodeSet keys; Slurm
// node changes from the syncer's watch do too (so the status's Slurm counts follow Slurm
// within a poll, not a resync); the runtime hands each key to one worker at a time,
// which runs SyncNodeSet. Workers run only while this replica leads (k8s/leadership.h).

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "k8s/controller.h"
#include "sync.h"

namespace tidepool::nodeset {

class NodeSetController : public k8s::Reconciler {
 public:
  // `context` (and everything it points to) outlives the controller.
  NodeSetController(SyncContext context, int workers);
  NodeSetController(const NodeSetController&) = delete;
  NodeSetController& operator=(const NodeSetController&) = delete;

  // Adds the event handlers to the informers (before they start).
  void RegisterHandlers();
  // Slurm nodes changed (from the syncer's watch): the NodeSets whose pods they are.
  void OnSlurmChange(const std::vector<std::string>& slurm_names, bool all);

  absl::StatusOr<k8s::ReconcileResult> Reconcile(const std::string& key) override;

  // What Leadership starts and stops.
  k8s::Controller& runtime() { return runtime_; }

 private:
  // Whether the NodeSet `key` names the cluster this release serves (or is gone).
  bool Serves(const std::string& key) const;
  void Enqueue(const std::string& key);
  void EnqueueAll();
  void EnqueueCluster(const std::string& ns, const std::string& cluster);
  void EnqueueOwnerOf(const k8s::CachedObjectPtr& pod);

  SyncContext context_;
  k8s::Controller runtime_;
};

}  // namespace tidepool::nodeset

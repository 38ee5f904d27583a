#pragma once

// The nodeset-controller as client-go's sample-controller: informers on NodeSets, Nodes,
// slurmd pods and SlurmClusters turn events into NodeSet keys; Slurm node changes from
// the syncer's watch do too; a rate-limited work queue hands each key to one worker at a
// time, which runs SyncNodeSet. Workers run only while this replica leads.

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "k8s/workqueue.h"
#include "sync.h"

namespace tidepool::nodeset {

class NodeSetController {
 public:
  // `context` (and everything it points to) outlives the controller.
  NodeSetController(SyncContext context, int workers);
  ~NodeSetController() { StopWorkers(); }
  NodeSetController(const NodeSetController&) = delete;
  NodeSetController& operator=(const NodeSetController&) = delete;

  // Adds the event handlers to the informers (before they start).
  void RegisterHandlers();
  // Slurm nodes changed (from the syncer's watch): the NodeSets whose pods they are.
  void OnSlurmChange(const std::vector<std::string>& slurm_names, bool all);

  // Starts the workers with every NodeSet queued (on becoming leader); StopWorkers waits
  // for the syncs in flight (on losing leadership or shutdown).
  void StartWorkers();
  void StopWorkers();

 private:
  void Enqueue(const std::string& key);
  void EnqueueAll();
  void EnqueueCluster(const std::string& ns, const std::string& cluster);
  void EnqueueOwnerOf(const k8s::CachedObjectPtr& pod);
  void Work(k8s::WorkQueue* queue);
  void ProcessKey(k8s::WorkQueue& queue, const std::string& key);

  SyncContext context_;
  const int workers_;
  absl::Mutex mutex_;
  std::shared_ptr<k8s::WorkQueue> queue_ ABSL_GUARDED_BY(mutex_);  // null while not leading
  std::vector<std::thread> threads_;
};

}  // namespace tidepool::nodeset

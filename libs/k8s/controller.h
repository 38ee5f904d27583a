#pragma once

// The controller runtime every Tidepool controller runs on, as client-go's
// sample-controller: event handlers Enqueue keys; a work queue (k8s/workqueue.h) hands
// each key to one of N workers at a time, which calls the Reconciler; its result says
// what next: done (Forget the key's failures), look again after a delay, or an error
// (AddRateLimited: exponential backoff per key). Workers reconcile only once the caches
// they read have synced, and only between Start and Stop, which Leadership
// (k8s/leadership.h) calls on gaining and losing the lease. Time comes from an injected
// clock.

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "k8s/workqueue.h"

namespace tidepool::k8s {

struct ReconcileResult {
  // Look at the key again after this long (zero: only on its next event).
  absl::Duration requeue_after = absl::ZeroDuration();
};

// One key's level-triggered sync: recomputes from current state, acts idempotently. An
// error is retried with backoff; called for one key by one worker at a time.
class Reconciler {
 public:
  virtual ~Reconciler() = default;
  virtual absl::StatusOr<ReconcileResult> Reconcile(const std::string& key) = 0;
};

// How often a key is looked at again while the caches are stale.
inline constexpr absl::Duration kStaleCacheRetry = absl::Seconds(1);

struct ControllerOptions {
  std::string name;  // in logs
  int workers = 1;
  WorkQueueOptions queue;
  // True once every cache the reconciler reads has synced (null: nothing to wait for).
  std::function<bool()> caches_synced;
  // OK while those caches follow the server (Informer::Freshness). On a stale cache a key is
  // not reconciled but looked at again every kStaleCacheRetry (no backoff, no error
  // result): an action on old state could undo a newer change, or delete a pod whose
  // drain it cannot see. Null: always current.
  std::function<absl::Status()> caches_current;
  // Every key there is, queued on each Start once the caches synced (level-triggered: a
  // new leader looks at everything once).
  std::function<std::vector<std::string>()> all_keys;
  // After each reconcile and its retry or requeue (metrics): its result and how long it
  // took on the clock.
  std::function<void(const std::string& key, const absl::StatusOr<ReconcileResult>& result,
                     absl::Duration took)>
      on_result;
};

class Controller {
 public:
  // `reconciler` and `clock` outlive the controller.
  Controller(Reconciler& reconciler, common::Clock* clock, ControllerOptions options);
  ~Controller() { Stop(); }
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  // Starts the workers with a new queue; they wait for the caches, queue all_keys, then
  // reconcile. Does nothing while running.
  void Start();
  // Stops handing out keys and waits for the reconciles in flight; the queue and what
  // it held are dropped (the next Start queues every key again).
  void Stop();
  bool running();

  // While stopped these do nothing: the next Start looks at every key anyway.
  void Enqueue(const std::string& key);
  // Ahead of every key enqueued otherwise (WorkQueue::AddUrgent).
  void EnqueueUrgent(const std::string& key);
  void EnqueueAfter(const std::string& key, absl::Duration delay);
  void EnqueueAll();

  const std::string& name() const { return options_.name; }

 private:
  void Work(const std::shared_ptr<WorkQueue>& queue, bool first);
  // False when stopped before the caches synced.
  bool WaitForCaches(WorkQueue& queue);
  void Process(WorkQueue& queue, const std::string& key, Lane lane);
  // options_.caches_current, logging when the answer changes.
  bool CachesCurrent();

  Reconciler& reconciler_;
  common::Clock* const clock_;
  const ControllerOptions options_;

  std::atomic<bool> caches_stale_ = false;
  absl::Mutex mutex_;
  std::shared_ptr<WorkQueue> queue_ ABSL_GUARDED_BY(mutex_);  // null while stopped
  absl::Mutex lifecycle_mutex_;                               // serialises Start and Stop
  std::vector<std::thread> threads_ ABSL_GUARDED_BY(lifecycle_mutex_);
};

}  // namespace tidepool::k8s

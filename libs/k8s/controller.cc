#include "k8s/controller.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/time/clock.h"
#include "common/log.h"
#include "k8s/request_priority.h"

namespace tidepool::k8s {
namespace {

// How often a worker waiting for the caches looks again (real time: the caches fill from
// the network, not from the clock).
constexpr absl::Duration kCacheCheckInterval = absl::Milliseconds(50);

}  // namespace

Controller::Controller(Reconciler& reconciler, common::Clock* clock, ControllerOptions options)
    : reconciler_(reconciler), clock_(clock), options_(std::move(options)) {}

void Controller::Start() {
  absl::MutexLock lifecycle(&lifecycle_mutex_);
  std::shared_ptr<WorkQueue> queue;
  {
    absl::MutexLock lock(&mutex_);
    if (queue_ != nullptr) return;
    queue_ = std::make_shared<WorkQueue>(clock_, options_.queue);
    queue = queue_;
  }
  const int workers = std::max(1, options_.workers);
  for (int i = 0; i < workers; ++i) {
    threads_.emplace_back([this, queue, first = i == 0] { Work(queue, first); });
  }
  common::LogInfo("workers_started", {{"controller", options_.name}, {"workers", workers}});
}

void Controller::Stop() {
  absl::MutexLock lifecycle(&lifecycle_mutex_);
  std::shared_ptr<WorkQueue> queue;
  {
    absl::MutexLock lock(&mutex_);
    queue = std::move(queue_);
    queue_ = nullptr;
  }
  if (queue == nullptr) return;
  queue->ShutDown();
  for (std::thread& thread : threads_) thread.join();
  threads_.clear();
  common::LogInfo("workers_stopped", {{"controller", options_.name}});
}

bool Controller::running() {
  absl::MutexLock lock(&mutex_);
  return queue_ != nullptr;
}

void Controller::Enqueue(const std::string& key) {
  absl::MutexLock lock(&mutex_);
  if (queue_ != nullptr) queue_->Add(key);
}

void Controller::EnqueueUrgent(const std::string& key) {
  absl::MutexLock lock(&mutex_);
  if (queue_ != nullptr) queue_->AddUrgent(key);
}

void Controller::EnqueueAfter(const std::string& key, absl::Duration delay) {
  absl::MutexLock lock(&mutex_);
  if (queue_ != nullptr) queue_->AddAfter(key, delay);
}

void Controller::EnqueueAll() {
  if (!options_.all_keys) return;
  std::shared_ptr<WorkQueue> queue;
  {
    absl::MutexLock lock(&mutex_);
    queue = queue_;
  }
  if (queue == nullptr) return;
  for (const std::string& key : options_.all_keys()) queue->Add(key);
}

bool Controller::WaitForCaches(WorkQueue& queue) {
  if (!options_.caches_synced) return true;
  while (!options_.caches_synced()) {
    if (queue.shutting_down()) return false;
    absl::SleepFor(kCacheCheckInterval);
  }
  return true;
}

void Controller::Work(const std::shared_ptr<WorkQueue>& queue, bool first) {
  // Keys queued by events meanwhile wait too: a reconcile on a half-filled cache would
  // see objects as missing.
  if (!WaitForCaches(*queue)) return;
  if (first && options_.all_keys) {
    for (const std::string& key : options_.all_keys()) queue->Add(key);
  }
  Lane lane = Lane::kRoutine;
  while (std::optional<std::string> key = queue->Get(&lane)) {
    Process(*queue, *key, lane);
    queue->Done(*key);
  }
}

bool Controller::CachesCurrent() {
  const absl::Status current =
      options_.caches_current ? options_.caches_current() : absl::OkStatus();
  // Once per change, not per key: an outage would otherwise log every key every second.
  if (const bool stale = !current.ok(); caches_stale_.exchange(stale) != stale) {
    if (stale) {
      common::LogWarn("caches_stale", {{"controller", options_.name},
                                       {"error", current},
                                       {"retry_every", absl::FormatDuration(kStaleCacheRetry)}});
    } else {
      common::LogInfo("caches_current", {{"controller", options_.name}});
    }
  }
  return current.ok();
}

void Controller::Process(WorkQueue& queue, const std::string& key, Lane lane) {
  if (!CachesCurrent()) {
    // Not a failure of the key: no backoff growing through the outage (the key is
    // looked at within a second of the watch's return) and no error result.
    queue.AddAfter(key, kStaleCacheRetry);
    return;
  }
  const absl::Time started = clock_->Now();
  absl::StatusOr<ReconcileResult> result;
  {
    const UrgentRequests priority(lane == Lane::kUrgent);
    result = reconciler_.Reconcile(key);
  }
  const absl::Duration took = clock_->Now() - started;
  if (!result.ok()) {
    common::LogWarn("reconcile_failed",
                    {{"controller", options_.name}, {"key", key}, {"error", result.status()}});
    queue.AddRateLimited(key);
  } else {
    queue.Forget(key);
    if (result->requeue_after > absl::ZeroDuration()) queue.AddAfter(key, result->requeue_after);
  }
  if (options_.on_result) options_.on_result(key, result, took);
}

}  // namespace tidepool::k8s

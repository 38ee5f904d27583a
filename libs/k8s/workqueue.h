#pragma once

// A work queue of object keys, as client-go's rate-limited workqueue: a key is queued at
// most once however often it is added; a key being processed is not handed out again
// until Done, and if it was added meanwhile it is queued again then. Retries are delayed
// per key with exponential backoff (base * 2^failures, capped) and, over all keys, by a
// token bucket. Keys added as urgent are handed out before every key added otherwise,
// so a change that must not wait (a drain) does not queue behind a bulk of routine ones.
// Time comes from an injected clock. Thread-safe.

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "k8s/rate_limiter.h"

namespace tidepool::k8s {

struct WorkQueueOptions {
  absl::Duration base_delay = absl::Milliseconds(5);
  absl::Duration max_delay = absl::Seconds(1000);
  double qps = 10;  // overall retry rate (AddRateLimited); <= 0 for none
  int burst = 100;
};

// Which lane a key was handed out from.
enum class Lane { kRoutine, kUrgent };

class WorkQueue {
 public:
  explicit WorkQueue(common::Clock* clock, WorkQueueOptions options = {});

  void Add(const std::string& key);
  // As Add, ahead of every key not added as urgent (first come, first out among urgent
  // ones). A key already queued moves ahead; one being processed is queued ahead on Done.
  void AddUrgent(const std::string& key);
  // Adds `key` once `delay` has passed on the clock (at once if not positive).
  void AddAfter(const std::string& key, absl::Duration delay);
  // Adds `key` after its backoff: the larger of the per-key exponential delay and the
  // overall bucket's. Counts a failure for the key.
  void AddRateLimited(const std::string& key);
  // The delay AddRateLimited would use now, counting a failure (exposed for tests).
  absl::Duration NextDelay(const std::string& key);
  // Clears the key's failure count (after a successful sync).
  void Forget(const std::string& key);
  int NumRequeues(const std::string& key);

  // The next key, waiting for one; nullopt once shut down. Call Done(key) after. The lane
  // it came from goes to `lane` when given.
  std::optional<std::string> Get(Lane* lane = nullptr);
  // The next key if one is ready now (delayed keys whose time has come included).
  std::optional<std::string> TryGet(Lane* lane = nullptr);
  void Done(const std::string& key);

  // Add does nothing afterwards; Get hands out what is queued, then nullopt.
  void ShutDown();
  bool shutting_down();
  size_t Len();  // keys ready to be handed out, urgent ones included

 private:
  void AddLocked(const std::string& key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  bool EmptyLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void PromoteDueLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  std::optional<std::string> PopLocked(Lane* lane) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // The front of queue_ after dropping stale entries; nullopt when none is live.
  std::optional<std::string> PopRoutineLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  size_t LiveRoutineLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  common::Clock* const clock_;
  const WorkQueueOptions options_;
  TokenBucketRateLimiter bucket_;
  absl::Mutex mutex_;
  std::deque<std::string> queue_ ABSL_GUARDED_BY(mutex_);
  std::deque<std::string> urgent_queue_ ABSL_GUARDED_BY(mutex_);  // handed out first
  std::set<std::string> urgent_ ABSL_GUARDED_BY(mutex_);          // dirty keys that go urgent
  std::set<std::string> dirty_ ABSL_GUARDED_BY(mutex_);           // queued or to requeue
  std::set<std::string> processing_ ABSL_GUARDED_BY(mutex_);      // handed out, not Done
  // Entries of queue_ left behind by keys AddUrgent moved ahead, skipped when popped (a
  // search of the deque would make each urgent add linear in the queue's length).
  std::map<std::string, int> stale_in_queue_ ABSL_GUARDED_BY(mutex_);
  size_t stale_total_ ABSL_GUARDED_BY(mutex_) = 0;
  std::map<std::string, int> failures_ ABSL_GUARDED_BY(mutex_);
  // Delayed keys: due time, sequence (FIFO among equal times), key.
  std::set<std::tuple<absl::Time, uint64_t, std::string>> waiting_ ABSL_GUARDED_BY(mutex_);
  std::map<std::string, absl::Time> waiting_due_ ABSL_GUARDED_BY(mutex_);
  uint64_t sequence_ ABSL_GUARDED_BY(mutex_) = 0;
  bool shutting_down_ ABSL_GUARDED_BY(mutex_) = false;
};

}  // namespace tidepool::k8s

#pragma once

// A thread that runs one function now and then every `interval` after the previous run
// ended, or sooner when woken (at once, or within a delay); stopped (and joined) by Stop
// or destruction.

#include <functional>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace tidepool::common {

class PeriodicWorker {
 public:
  PeriodicWorker(absl::Duration interval, std::function<void()> work);
  ~PeriodicWorker();
  PeriodicWorker(const PeriodicWorker&) = delete;
  PeriodicWorker& operator=(const PeriodicWorker&) = delete;

  // Runs the work again as soon as the current run (if any) ends.
  void Wake();
  // Runs the work again no later than `delay` from now (and at the regular time if that
  // is sooner).
  void WakeWithin(absl::Duration delay);
  // Waits for the current run to end; no run starts after it.
  void Stop();

 private:
  void Loop();

  const absl::Duration interval_;
  const std::function<void()> work_;
  absl::Mutex mutex_;
  bool woken_ ABSL_GUARDED_BY(mutex_) = false;
  absl::Time wake_by_ ABSL_GUARDED_BY(mutex_) = absl::InfiniteFuture();
  bool wake_by_changed_ ABSL_GUARDED_BY(mutex_) = false;
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  std::thread thread_;
};

}  // namespace tidepool::common

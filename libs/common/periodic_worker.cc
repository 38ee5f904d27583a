#include "common/periodic_worker.h"

#include <algorithm>
#include <utility>

#include "absl/time/clock.h"

namespace tidepool::common {

PeriodicWorker::PeriodicWorker(absl::Duration interval, std::function<void()> work)
    : interval_(interval), work_(std::move(work)), thread_([this] { Loop(); }) {}

PeriodicWorker::~PeriodicWorker() { Stop(); }

void PeriodicWorker::Wake() {
  absl::MutexLock lock(&mutex_);
  woken_ = true;
}

void PeriodicWorker::WakeWithin(absl::Duration delay) {
  absl::MutexLock lock(&mutex_);
  const absl::Time by = absl::Now() + delay;
  if (by < wake_by_) {
    wake_by_ = by;
    wake_by_changed_ = true;
  }
}

void PeriodicWorker::Stop() {
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void PeriodicWorker::Loop() {
  while (true) {
    {
      absl::MutexLock lock(&mutex_);
      if (stopping_) return;
      woken_ = false;
      wake_by_ = absl::InfiniteFuture();
    }
    work_();
    const absl::Time regular = absl::Now() + interval_;
    absl::MutexLock lock(&mutex_);
    auto due = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
      return woken_ || stopping_ || wake_by_changed_;
    };
    // A WakeWithin while waiting moves the deadline: wait again until the new one.
    do {
      wake_by_changed_ = false;
    } while (mutex_.AwaitWithDeadline(absl::Condition(&due), std::min(regular, wake_by_)) &&
             !woken_ && !stopping_);
  }
}

}  // namespace tidepool::common

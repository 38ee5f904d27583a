#include "common/periodic_worker.h"

#include <utility>

namespace tidepool::common {

PeriodicWorker::PeriodicWorker(absl::Duration interval, std::function<void()> work)
    : interval_(interval), work_(std::move(work)), thread_([this] { Loop(); }) {}

PeriodicWorker::~PeriodicWorker() { Stop(); }

void PeriodicWorker::Wake() {
  absl::MutexLock lock(&mutex_);
  woken_ = true;
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
    }
    work_();
    absl::MutexLock lock(&mutex_);
    auto due = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return woken_ || stopping_; };
    mutex_.AwaitWithTimeout(absl::Condition(&due), interval_);
  }
}

}  // namespace tidepool::common

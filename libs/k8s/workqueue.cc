#include "k8s/workqueue.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "absl/time/clock.h"

namespace tidepool::k8s {

WorkQueue::WorkQueue(common::Clock* clock, WorkQueueOptions options)
    : clock_(clock), options_(options), bucket_(options.qps, options.burst, clock) {}

void WorkQueue::AddLocked(const std::string& key) {
  if (shutting_down_ || dirty_.count(key) != 0) return;
  dirty_.insert(key);
  if (processing_.count(key) != 0) return;  // queued again on Done
  queue_.push_back(key);
}

void WorkQueue::Add(const std::string& key) {
  absl::MutexLock lock(&mutex_);
  AddLocked(key);
}

void WorkQueue::AddUrgent(const std::string& key) {
  absl::MutexLock lock(&mutex_);
  if (shutting_down_ || urgent_.count(key) != 0) return;
  urgent_.insert(key);
  const bool queued = dirty_.count(key) != 0 && processing_.count(key) == 0;
  dirty_.insert(key);
  if (processing_.count(key) != 0) return;  // queued ahead on Done
  if (queued) {
    ++stale_in_queue_[key];
    ++stale_total_;
  }
  urgent_queue_.push_back(key);
}

size_t WorkQueue::LiveRoutineLocked() const { return queue_.size() - stale_total_; }

bool WorkQueue::EmptyLocked() const { return LiveRoutineLocked() == 0 && urgent_queue_.empty(); }

void WorkQueue::AddAfter(const std::string& key, absl::Duration delay) {
  absl::MutexLock lock(&mutex_);
  if (shutting_down_) return;
  if (delay <= absl::ZeroDuration()) {
    AddLocked(key);
    return;
  }
  const absl::Time due = clock_->Now() + delay;
  auto it = waiting_due_.find(key);
  if (it != waiting_due_.end()) {
    if (it->second <= due) return;  // already due sooner
    for (auto w = waiting_.begin(); w != waiting_.end(); ++w) {
      if (std::get<2>(*w) == key) {
        waiting_.erase(w);
        break;
      }
    }
  }
  waiting_due_[key] = due;
  waiting_.emplace(due, sequence_++, key);
}

absl::Duration WorkQueue::NextDelay(const std::string& key) {
  int failures;
  {
    absl::MutexLock lock(&mutex_);
    failures = failures_[key]++;
  }
  const double factor = std::ldexp(1.0, std::min(failures, 62));
  const absl::Duration per_key =
      std::min(options_.max_delay,
               absl::Seconds(absl::ToDoubleSeconds(options_.base_delay) * std::min(factor, 1e12)));
  return std::max(per_key, bucket_.Reserve());
}

void WorkQueue::AddRateLimited(const std::string& key) { AddAfter(key, NextDelay(key)); }

void WorkQueue::Forget(const std::string& key) {
  absl::MutexLock lock(&mutex_);
  failures_.erase(key);
}

int WorkQueue::NumRequeues(const std::string& key) {
  absl::MutexLock lock(&mutex_);
  auto it = failures_.find(key);
  return it == failures_.end() ? 0 : it->second;
}

void WorkQueue::PromoteDueLocked() {
  const absl::Time now = clock_->Now();
  while (!waiting_.empty() && std::get<0>(*waiting_.begin()) <= now) {
    const std::string key = std::get<2>(*waiting_.begin());
    waiting_.erase(waiting_.begin());
    waiting_due_.erase(key);
    AddLocked(key);
  }
}

std::optional<std::string> WorkQueue::PopRoutineLocked() {
  while (!queue_.empty()) {
    std::string key = std::move(queue_.front());
    queue_.pop_front();
    auto stale = stale_in_queue_.find(key);
    if (stale == stale_in_queue_.end()) return key;
    --stale_total_;
    if (--stale->second == 0) stale_in_queue_.erase(stale);
  }
  return std::nullopt;
}

std::optional<std::string> WorkQueue::PopLocked(Lane* lane) {
  std::optional<std::string> key;
  if (!urgent_queue_.empty()) {
    key = std::move(urgent_queue_.front());
    urgent_queue_.pop_front();
    if (lane != nullptr) *lane = Lane::kUrgent;
  } else {
    key = PopRoutineLocked();
    if (!key) return std::nullopt;
    if (lane != nullptr) *lane = Lane::kRoutine;
  }
  processing_.insert(*key);
  dirty_.erase(*key);
  urgent_.erase(*key);
  return key;
}

std::optional<std::string> WorkQueue::TryGet(Lane* lane) {
  absl::MutexLock lock(&mutex_);
  PromoteDueLocked();
  return PopLocked(lane);
}

std::optional<std::string> WorkQueue::Get(Lane* lane) {
  absl::MutexLock lock(&mutex_);
  while (true) {
    PromoteDueLocked();
    if (!EmptyLocked()) return PopLocked(lane);
    if (shutting_down_) return std::nullopt;
    // Wait for an Add, or until the next delayed key is due (re-checked at least every
    // 100 ms of real time, so a clock that is not the real one is followed too).
    absl::Duration wait = absl::Milliseconds(100);
    if (!waiting_.empty()) {
      wait = std::clamp(std::get<0>(*waiting_.begin()) - clock_->Now(), absl::ZeroDuration(), wait);
    }
    auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
      return !EmptyLocked() || shutting_down_;
    };
    mutex_.AwaitWithTimeout(absl::Condition(&ready), wait);
  }
}

void WorkQueue::Done(const std::string& key) {
  absl::MutexLock lock(&mutex_);
  processing_.erase(key);
  if (dirty_.count(key) == 0) return;
  (urgent_.count(key) != 0 ? urgent_queue_ : queue_).push_back(key);
}

void WorkQueue::ShutDown() {
  absl::MutexLock lock(&mutex_);
  shutting_down_ = true;
}

bool WorkQueue::shutting_down() {
  absl::MutexLock lock(&mutex_);
  return shutting_down_;
}

size_t WorkQueue::Len() {
  absl::MutexLock lock(&mutex_);
  PromoteDueLocked();
  return LiveRoutineLocked() + urgent_queue_.size();
}

}  // namespace tidepool::k8s

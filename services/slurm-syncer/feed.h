#pragma once

// A keyed view of Slurm objects (nodes, jobs) that one poll loop keeps current and any
// number of watchers follow. Each poll's result is diffed against the view; the changes
// go to every subscription as one shared update, so N watchers cost one poll and one
// diff. A new subscription first gets the whole view as a snapshot, taken under the
// same lock that publishes changes, so it misses nothing and sees nothing twice.
//
// Subscriptions have bounded queues: one whose reader falls behind is closed as
// overflowed (the watcher re-subscribes and gets a fresh snapshot), so a slow watcher
// never holds memory or the poll loop back.

#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace tidepool::syncer {

template <typename Item>
struct Change {
  enum class Type { kAdded, kModified, kDeleted };
  Type type = Type::kAdded;
  Item item;  // for kDeleted, the last state seen
};

template <typename Item>
struct FeedUpdate {
  enum class Kind { kSnapshot, kChanges, kUnavailable };
  Kind kind = Kind::kChanges;
  std::vector<Change<Item>> changes;  // kSnapshot: every item as kAdded
  std::string unavailable_reason;
  absl::Time observed_at;
};

template <typename Item>
using SharedUpdate = std::shared_ptr<const FeedUpdate<Item>>;

// The changes that turn `before` into `after` (keyed by `key`), in key order.
template <typename Key, typename Item>
std::vector<Change<Item>> DiffByKey(const std::map<Key, Item>& before,
                                    const std::map<Key, Item>& after) {
  std::vector<Change<Item>> changes;
  auto old_it = before.begin();
  auto new_it = after.begin();
  while (old_it != before.end() || new_it != after.end()) {
    if (new_it == after.end() || (old_it != before.end() && old_it->first < new_it->first)) {
      changes.push_back({Change<Item>::Type::kDeleted, old_it->second});
      ++old_it;
    } else if (old_it == before.end() || new_it->first < old_it->first) {
      changes.push_back({Change<Item>::Type::kAdded, new_it->second});
      ++new_it;
    } else {
      if (!(old_it->second == new_it->second)) {
        changes.push_back({Change<Item>::Type::kModified, new_it->second});
      }
      ++old_it;
      ++new_it;
    }
  }
  return changes;
}

template <typename Item>
class Subscription {
 public:
  explicit Subscription(size_t capacity) : capacity_(capacity) {}

  // The next update, or nullopt when none came within `timeout` or the subscription
  // is closed (see closed()).
  std::optional<SharedUpdate<Item>> Next(absl::Duration timeout) {
    absl::MutexLock lock(&mutex_);
    auto ready = [this]()
                     ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return !queue_.empty() || closed_; };
    mutex_.AwaitWithTimeout(absl::Condition(&ready), timeout);
    if (queue_.empty()) return std::nullopt;
    SharedUpdate<Item> next = std::move(queue_.front());
    queue_.pop_front();
    return next;
  }

  // Closed because the reader fell behind by more than the queue holds.
  bool overflowed() const {
    absl::MutexLock lock(&mutex_);
    return overflowed_;
  }
  bool closed() const {
    absl::MutexLock lock(&mutex_);
    return closed_;
  }

  void Push(SharedUpdate<Item> update) {
    absl::MutexLock lock(&mutex_);
    if (closed_) return;
    if (queue_.size() >= capacity_) {
      overflowed_ = true;
      closed_ = true;
      queue_.clear();
      return;
    }
    queue_.push_back(std::move(update));
  }

  void Close() {
    absl::MutexLock lock(&mutex_);
    closed_ = true;
  }

 private:
  const size_t capacity_;
  mutable absl::Mutex mutex_;
  std::deque<SharedUpdate<Item>> queue_ ABSL_GUARDED_BY(mutex_);
  bool overflowed_ ABSL_GUARDED_BY(mutex_) = false;
  bool closed_ ABSL_GUARDED_BY(mutex_) = false;
};

template <typename Key, typename Item>
class Feed {
 public:
  using KeyFunction = std::function<Key(const Item&)>;

  explicit Feed(KeyFunction key_of, size_t subscription_capacity = 256)
      : key_of_(std::move(key_of)), subscription_capacity_(subscription_capacity) {}

  // Replaces the view with `items` and publishes what changed. After a period of
  // unavailability (or the first time) the update is published even when nothing
  // changed, so watchers learn the view is current again. Returns the changes.
  std::vector<Change<Item>> Apply(std::vector<Item> items, absl::Time observed_at) {
    std::map<Key, Item> next;
    for (Item& item : items) {
      Key key = key_of_(item);
      next.insert_or_assign(std::move(key), std::move(item));
    }
    absl::MutexLock lock(&mutex_);
    std::vector<Change<Item>> changes = DiffByKey(view_, next);
    view_ = std::move(next);
    observed_at_ = observed_at;
    const bool first = !synced_;
    const bool recovered = unavailable_reason_.has_value();
    synced_ = true;
    unavailable_reason_.reset();
    if (first) {
      PublishLocked(SnapshotLocked());
    } else if (!changes.empty() || recovered) {
      PublishLocked(std::make_shared<const FeedUpdate<Item>>(
          FeedUpdate<Item>{.kind = FeedUpdate<Item>::Kind::kChanges,
                           .changes = changes,
                           .observed_at = observed_at}));
    }
    return changes;
  }

  // The source cannot be read: tells watchers once per outage (the view is kept). The
  // reason kept (readiness says it) is the latest: an operator who fixed one cause sees the
  // next, not the one already gone.
  void MarkUnavailable(std::string reason, absl::Time when) {
    absl::MutexLock lock(&mutex_);
    const bool told = unavailable_reason_.has_value();
    unavailable_reason_ = std::move(reason);
    if (told) return;
    PublishLocked(UnavailableLocked(when));
  }

  // Forgets the view (nobody watches it any more); the next Apply is a first snapshot.
  void Reset() {
    absl::MutexLock lock(&mutex_);
    view_.clear();
    synced_ = false;
    unavailable_reason_.reset();
  }

  // A new watcher: the snapshot now if the view is synced (and an unavailable notice
  // if the source is down), else whatever the first Apply or MarkUnavailable publishes.
  std::shared_ptr<Subscription<Item>> Subscribe() {
    auto subscription = std::make_shared<Subscription<Item>>(subscription_capacity_);
    absl::MutexLock lock(&mutex_);
    if (synced_) subscription->Push(SnapshotLocked());
    if (unavailable_reason_.has_value()) subscription->Push(UnavailableLocked(absl::Now()));
    subscriptions_.push_back(subscription);
    return subscription;
  }

  size_t subscriber_count() {
    absl::MutexLock lock(&mutex_);
    DropClosedLocked();
    return subscriptions_.size();
  }

  // The current view (empty before the first Apply) and when it was taken.
  std::vector<Item> Items(absl::Time* observed_at = nullptr) const {
    absl::MutexLock lock(&mutex_);
    if (observed_at != nullptr) *observed_at = observed_at_;
    std::vector<Item> items;
    items.reserve(view_.size());
    for (const auto& [key, item] : view_) items.push_back(item);
    return items;
  }

  // One item of the view, if present.
  std::optional<Item> Get(const Key& key) const {
    absl::MutexLock lock(&mutex_);
    auto it = view_.find(key);
    if (it == view_.end()) return std::nullopt;
    return it->second;
  }

  bool synced() const {
    absl::MutexLock lock(&mutex_);
    return synced_;
  }

  // OK while the view is current: the first poll is done and the last one succeeded;
  // else Unavailable saying which.
  absl::Status Current() const {
    absl::MutexLock lock(&mutex_);
    if (unavailable_reason_.has_value()) {
      return absl::UnavailableError(
          absl::StrCat("Slurm cannot be read now: ", *unavailable_reason_));
    }
    if (!synced_) {
      return absl::UnavailableError("the first poll of Slurm has not finished; retry shortly");
    }
    return absl::OkStatus();
  }

  // Why the source is unavailable, if it is.
  std::optional<std::string> unavailable_reason() const {
    absl::MutexLock lock(&mutex_);
    return unavailable_reason_;
  }

  void CloseAll() {
    absl::MutexLock lock(&mutex_);
    for (auto& subscription : subscriptions_) subscription->Close();
    subscriptions_.clear();
  }

 private:
  SharedUpdate<Item> SnapshotLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    FeedUpdate<Item> snapshot{.kind = FeedUpdate<Item>::Kind::kSnapshot,
                              .observed_at = observed_at_};
    snapshot.changes.reserve(view_.size());
    for (const auto& [key, item] : view_) {
      snapshot.changes.push_back({Change<Item>::Type::kAdded, item});
    }
    return std::make_shared<const FeedUpdate<Item>>(std::move(snapshot));
  }

  SharedUpdate<Item> UnavailableLocked(absl::Time when) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return std::make_shared<const FeedUpdate<Item>>(
        FeedUpdate<Item>{.kind = FeedUpdate<Item>::Kind::kUnavailable,
                         .unavailable_reason = *unavailable_reason_,
                         .observed_at = when});
  }

  void PublishLocked(const SharedUpdate<Item>& update) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    DropClosedLocked();
    for (auto& subscription : subscriptions_) subscription->Push(update);
  }

  void DropClosedLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    std::erase_if(subscriptions_, [](const auto& s) { return s->closed(); });
  }

  const KeyFunction key_of_;
  const size_t subscription_capacity_;
  mutable absl::Mutex mutex_;
  std::map<Key, Item> view_ ABSL_GUARDED_BY(mutex_);
  absl::Time observed_at_ ABSL_GUARDED_BY(mutex_);
  bool synced_ ABSL_GUARDED_BY(mutex_) = false;
  std::optional<std::string> unavailable_reason_ ABSL_GUARDED_BY(mutex_);
  std::vector<std::shared_ptr<Subscription<Item>>> subscriptions_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace tidepool::syncer

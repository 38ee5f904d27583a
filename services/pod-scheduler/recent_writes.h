#pragma once

// Writes this process made that its caches may not show yet. The watch event of a
// binding trails the write, and so does the job watch after a cancel: a sync in between
// (a job event, the pod's own annotation arriving) would bind the pod again and get 409
// Conflict ("already assigned"), or cancel the job twice. Like kube-scheduler's assumed
// pods, such a write is taken as done for a while.

#include <map>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace tidepool::podsched {

class RecentWrites {
 public:
  explicit RecentWrites(absl::Duration keep_for = absl::Seconds(30)) : keep_for_(keep_for) {}

  // `what` was written to `target` (a pod's uid: the Node it was bound to).
  void Note(const std::string& target, const std::string& what, absl::Time now);
  // What was written to `target` within `keep_for`, if anything.
  std::optional<std::string> Find(const std::string& target, absl::Time now);

 private:
  struct Write {
    std::string what;
    absl::Time at;
  };
  const absl::Duration keep_for_;
  absl::Mutex mutex_;
  std::map<std::string, Write> by_target_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace tidepool::podsched

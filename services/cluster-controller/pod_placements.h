#pragma once

// Which clusters have a pod on each Kubernetes Node, kept from pod events, so a Node's
// change re-renders only those clusters. Each pod counts once, where its latest event put
// it, and a Node no pod is on any more is forgotten. Thread-safe.

#include <map>
#include <set>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace tidepool::cluster {

class PodPlacements {
 public:
  // The pod `pod_key` is on `node` for `cluster`; either empty: on none (unbound, unlabelled).
  void Place(const std::string& pod_key, const std::string& node, const std::string& cluster);
  void Remove(const std::string& pod_key);
  std::set<std::string> ClustersOn(const std::string& node) const;
  size_t nodes() const;

 private:
  void ForgetLocked(const std::string& pod_key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  mutable absl::Mutex mutex_;
  std::map<std::string, std::pair<std::string, std::string>> by_pod_ ABSL_GUARDED_BY(mutex_);
  std::map<std::string, std::map<std::string, int>> by_node_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace tidepool::cluster

#pragma once

// The Node labels a service's Node cache keeps: only those its readers ask for. A real GPU
// Node carries tens of labels (feature discovery's, the GPU operator's, the cloud's) of
// which Tidepool reads a handful, and each label a cache keeps costs about 160 bytes: at
// 10,000 Nodes with 60 labels, 115 MB per cache instead of 30.
//
// Which labels are read depends on the SlurmClusters and NodeSets (a NodeSet's selector or
// feature labels name any key), which change. So the set grows on demand: a reader calls
// Require with the keys it is about to read; a key not kept yet is added and the Node
// informer lists every Node again to read it, and Require says Unavailable until that list
// has been handled. A reader never sees a Node without a label it required: placing pods
// or rendering on such a view would take the label for absent.

#include <cstdint>
#include <map>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/map.h"
#include "k8s/informer.h"

namespace tidepool::api {

using LabelKeys = absl::flat_hash_set<std::string>;

class NodeLabelKeys {
 public:
  // `always`: keys kept from the start (those read whatever the objects say).
  explicit NodeLabelKeys(const LabelKeys& always = {});
  NodeLabelKeys(const NodeLabelKeys&) = delete;
  NodeLabelKeys& operator=(const NodeLabelKeys&) = delete;

  // Erases from `labels` every key not kept (the Node informer's parse_view).
  void Filter(google::protobuf::Map<std::string, std::string>& labels) const;

  // OK when every key of `keys` is kept and `nodes` (whose parse_view filters with this)
  // has read every Node since it was: its readers may read those labels now. Else keeps
  // the new keys, asks `nodes` to relist (once for keys asked together or while one is
  // pending) and says Unavailable, naming them; ask again once the relist has been handled
  // (its updates of every Node wake the readers' handlers).
  absl::Status Require(const LabelKeys& keys, k8s::Informer& nodes);

  // How many keys are kept (for logs and tests).
  size_t size() const;

 private:
  mutable absl::Mutex mutex_;
  // Key -> the relist request that brought it (0: kept from the start).
  std::map<std::string, uint64_t, std::less<>> kept_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace tidepool::api

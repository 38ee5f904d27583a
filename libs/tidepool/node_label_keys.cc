#include "tidepool/node_label_keys.h"

#include <algorithm>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/log.h"

namespace tidepool::api {

NodeLabelKeys::NodeLabelKeys(const LabelKeys& always) {
  for (const std::string& key : always) kept_.emplace(key, 0);
}

void NodeLabelKeys::Filter(google::protobuf::Map<std::string, std::string>& labels) const {
  // Into a map of their own: erasing from the parsed one would keep its table, sized for
  // every label (some 900 bytes per Node of 60 labels).
  google::protobuf::Map<std::string, std::string> kept;
  {
    absl::ReaderMutexLock lock(&mutex_);
    for (auto& [key, value] : labels) {
      if (kept_.contains(key)) kept[key] = std::move(value);
    }
  }
  labels.swap(kept);
}

absl::Status NodeLabelKeys::Require(const LabelKeys& keys, k8s::Informer& nodes) {
  std::set<std::string> added;  // sorted, for the log and the message
  uint64_t needed = 0;          // the latest relist request a required key waits for
  {
    absl::MutexLock lock(&mutex_);
    for (const std::string& key : keys) {
      auto it = kept_.find(key);
      if (it != kept_.end()) {
        needed = std::max(needed, it->second);
      } else {
        added.insert(key);
      }
    }
    if (!added.empty()) {
      // Kept before the relist is requested, so that the list that answers it reads them
      // (the watch reads the keys under this lock while parsing).
      const uint64_t request = nodes.RequestRelist();
      for (const std::string& key : added) kept_.emplace(key, request);
      needed = request;
      common::LogInfo("node_cache_relist",
                      {{"added_labels", absl::StrJoin(added, ",")}, {"kept_labels", kept_.size()}});
    }
  }
  if (nodes.RelistAnswered(needed)) return absl::OkStatus();
  std::vector<std::string> waiting;
  {
    absl::ReaderMutexLock lock(&mutex_);
    for (const std::string& key : keys) {
      auto it = kept_.find(key);
      if (it != kept_.end() && it->second > 0 && !nodes.RelistAnswered(it->second)) {
        waiting.push_back(key);
      }
    }
  }
  std::sort(waiting.begin(), waiting.end());
  return absl::UnavailableError(
      absl::StrCat("the Node cache is listing every Node again to keep label(s) ",
                   absl::StrJoin(waiting, ", "), "; retrying once that list has been read"));
}

size_t NodeLabelKeys::size() const {
  absl::ReaderMutexLock lock(&mutex_);
  return kept_.size();
}

}  // namespace tidepool::api

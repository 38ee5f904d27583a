#include "recent_writes.h"

namespace tidepool::podsched {

void RecentWrites::Note(const std::string& target, const std::string& what, absl::Time now) {
  absl::MutexLock lock(&mutex_);
  std::erase_if(by_target_, [&](const auto& entry) { return now - entry.second.at >= keep_for_; });
  by_target_.insert_or_assign(target, Write{.what = what, .at = now});
}

std::optional<std::string> RecentWrites::Find(const std::string& target, absl::Time now) {
  absl::MutexLock lock(&mutex_);
  auto it = by_target_.find(target);
  if (it == by_target_.end() || now - it->second.at >= keep_for_) {
    return std::nullopt;
  }
  return it->second.what;
}

}  // namespace tidepool::podsched

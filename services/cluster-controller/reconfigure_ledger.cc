#include "reconfigure_ledger.h"

#include <algorithm>

#include "tidepool/reconfigure_spacing.h"

namespace tidepool::cluster {

absl::Duration ReconfigureLedger::SpacingLeft(const std::string& cluster, const std::string& hash,
                                              int64_t nodes, absl::Time now) const {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(cluster);
  if (it == entries_.end() || it->second.hash == hash) return absl::ZeroDuration();
  return std::max(absl::ZeroDuration(),
                  it->second.returned_at + api::ReconfigureSpacing(nodes) - now);
}

std::optional<ReconfigureLedger::Pending> ReconfigureLedger::PendingFor(
    const std::string& cluster, const std::string& hash) const {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(cluster);
  if (it == entries_.end() || it->second.hash.empty() || it->second.hash != hash) {
    return std::nullopt;
  }
  return Pending{.returned_at = it->second.returned_at, .mismatch = it->second.mismatch};
}

void ReconfigureLedger::Sent(const std::string& cluster, const std::string& hash,
                             absl::Time returned_at) {
  absl::MutexLock lock(&mu_);
  entries_[cluster] = {.hash = hash, .returned_at = returned_at, .mismatch = ""};
}

void ReconfigureLedger::NotLoaded(const std::string& cluster, const std::string& mismatch) {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(cluster);
  if (it != entries_.end() && !it->second.hash.empty()) it->second.mismatch = mismatch;
}

void ReconfigureLedger::Loaded(const std::string& cluster) {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(cluster);
  if (it == entries_.end()) return;
  it->second.hash.clear();
  it->second.mismatch.clear();
}

}  // namespace tidepool::cluster

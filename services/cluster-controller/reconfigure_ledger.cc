#include "reconfigure_ledger.h"

#include <algorithm>

#include "tidepool/reconfigure_spacing.h"

namespace tidepool::cluster {

absl::Duration ReconfigureLedger::ResendWait(absl::Duration load_timeout, int sends) {
  const absl::Duration cap = std::max(load_timeout, kMaxResendWait);
  absl::Duration wait = load_timeout;
  for (int sent = 1; sent < sends && wait < cap; ++sent) wait *= 2;
  return std::min(wait, cap);
}

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
  return Pending{.returned_at = it->second.returned_at,
                 .mismatch = it->second.mismatch,
                 .sends = it->second.sends};
}

void ReconfigureLedger::Sent(const std::string& cluster, const std::string& hash,
                             absl::Time returned_at) {
  absl::MutexLock lock(&mu_);
  Entry& entry = entries_[cluster];
  const int sends = !entry.hash.empty() && entry.hash == hash ? entry.sends + 1 : 1;
  entry = {.hash = hash, .returned_at = returned_at, .mismatch = "", .sends = sends};
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
  it->second.sends = 0;
}

}  // namespace tidepool::cluster

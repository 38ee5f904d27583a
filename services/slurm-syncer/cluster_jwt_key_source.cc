#include "cluster_jwt_key_source.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/log.h"

namespace tidepool::syncer {

ClusterJwtKeySource::ClusterJwtKeySource(Reader read, ClusterJwtKeySourceOptions options)
    : read_(std::move(read)),
      options_(std::move(options)),
      last_failure_(absl::UnavailableError(
          absl::StrCat("JWT key of SlurmCluster ", options_.cluster, " not read yet"))) {}

absl::StatusOr<std::string> ClusterJwtKeySource::Key() {
  const absl::Time now = options_.clock->Now();
  {
    absl::MutexLock lock(&mutex_);
    if (reading_ || !ReadDue(now)) return Current();
    // One reader at a time, outside the lock: readiness and the other callers get the
    // key held meanwhile instead of waiting for the API server.
    reading_ = true;
    last_read_ = now;
  }
  absl::StatusOr<ClusterJwtKey> fresh = read_();
  absl::MutexLock lock(&mutex_);
  reading_ = false;
  if (fresh.ok()) {
    Keep(*std::move(fresh));
  } else {
    NoteFailure(fresh.status());
  }
  return Current();
}

void ClusterJwtKeySource::Rejected() {
  absl::MutexLock lock(&mutex_);
  stale_ = true;
  if (rejection_logged_ || !held_.has_value()) return;
  // Once per key: every request fails the same way until the key changes.
  rejection_logged_ = true;
  common::LogWarn("slurm_jwt_key_rejected",
                  {{"cluster", options_.cluster},
                   {"secret", held_->secret},
                   {"detail",
                    "slurmrestd refused a token signed with the key of this Secret; "
                    "re-reading it"}});
}

std::string ClusterJwtKeySource::Describe() const {
  absl::MutexLock lock(&mutex_);
  const std::string secret = held_.has_value() ? held_->secret : "(not read yet)";
  return absl::StrCat("Secret ", secret, " of SlurmCluster ", options_.cluster);
}

absl::Status ClusterJwtKeySource::Health() const {
  absl::MutexLock lock(&mutex_);
  return held_.has_value() ? absl::OkStatus() : last_failure_;
}

bool ClusterJwtKeySource::ReadDue(absl::Time now) const {
  const bool trusted = held_.has_value() && !stale_;
  return now - last_read_ >= (trusted ? options_.refresh_interval : options_.retry_interval);
}

absl::StatusOr<std::string> ClusterJwtKeySource::Current() const {
  if (!held_.has_value()) return last_failure_;
  return held_->key;
}

void ClusterJwtKeySource::Keep(ClusterJwtKey fresh) {
  const bool changed =
      !held_.has_value() || held_->key != fresh.key || held_->secret != fresh.secret;
  stale_ = false;
  last_failure_ = absl::OkStatus();
  if (!changed) return;
  rejection_logged_ = false;
  // The length only: the key's bytes never reach a log.
  common::LogInfo("slurm_jwt_key_loaded", {{"cluster", options_.cluster},
                                           {"secret", fresh.secret},
                                           {"bytes", static_cast<int64_t>(fresh.key.size())}});
  held_ = std::move(fresh);
}

void ClusterJwtKeySource::NoteFailure(const absl::Status& failure) {
  stale_ = true;
  // Logged when the problem changes, not on every retry.
  if (failure != last_failure_) {
    common::LogWarn("slurm_jwt_key_unavailable", {{"cluster", options_.cluster},
                                                  {"error", failure},
                                                  {"keeping_previous_key", held_.has_value()}});
  }
  last_failure_ = failure;
}

}  // namespace tidepool::syncer

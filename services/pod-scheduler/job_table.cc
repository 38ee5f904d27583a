#include "job_table.h"

#include <optional>
#include <utility>

#include "job_identity.h"

namespace tidepool::podsched {
namespace {

absl::Time TimeOf(const google::protobuf::Timestamp& t) {
  return absl::FromUnixSeconds(t.seconds()) + absl::Nanoseconds(t.nanos());
}

std::optional<std::string> PodKeyOf(const tidepool::v1::SlurmJob& job) {
  return SyncKeyOfJob(job.name(), job.comment());
}

}  // namespace

void JobTable::FileLocked(const std::string& key, const tidepool::v1::SlurmJob& job,
                          std::set<std::string>& changed) {
  unconfirmed_.erase(job.job_id());
  jobs_[job.job_id()] = {key, job};
  by_pod_[key].insert(job.job_id());
  changed.insert(key);
}

void JobTable::PutLocked(const tidepool::v1::SlurmJob& job, std::set<std::string>& changed) {
  // A job known here stays with the pod it was filed for, whatever its comment says now
  // (a person may edit it with scontrol): the pod keeps its job, and no key is left
  // naming a job the table no longer has.
  if (job.user() != job_user_) {
    EraseLocked(job.job_id(), changed);
    return;
  }
  if (auto known = jobs_.find(job.job_id()); known != jobs_.end()) {
    FileLocked(known->second.pod_key, job, changed);
    return;
  }
  std::optional<std::string> key = PodKeyOf(job);
  if (key.has_value()) FileLocked(*key, job, changed);
}

void JobTable::EraseLocked(uint32_t job_id, std::set<std::string>& changed) {
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return;
  const std::string& key = it->second.pod_key;
  changed.insert(key);
  auto ids = by_pod_.find(key);
  if (ids != by_pod_.end()) {
    ids->second.erase(job_id);
    if (ids->second.empty()) by_pod_.erase(ids);
  }
  jobs_.erase(it);
}

std::set<std::string> JobTable::Apply(const tidepool::v1::WatchJobsResponse& message) {
  using tidepool::v1::JobChange;
  using tidepool::v1::WatchJobsResponse;
  std::set<std::string> changed;
  absl::MutexLock lock(&mutex_);
  switch (message.kind()) {
    case WatchJobsResponse::SNAPSHOT: {
      for (const JobChange& change : message.changes()) pending_snapshot_.push_back(change.job());
      if (!message.snapshot_complete()) break;
      for (const auto& [key, ids] : by_pod_) changed.insert(key);
      std::map<uint32_t, FiledJob> before = std::move(jobs_);
      jobs_.clear();
      by_pod_.clear();
      for (const tidepool::v1::SlurmJob& job : pending_snapshot_) {
        auto known = before.find(job.job_id());
        if (known != before.end() && job.user() == job_user_) {
          FileLocked(known->second.pod_key, job, changed);
        } else {
          PutLocked(job, changed);
        }
      }
      pending_snapshot_.clear();
      for (const auto& [id, submitted] : unconfirmed_) {
        jobs_[id] = {submitted.first, submitted.second};
        by_pod_[submitted.first].insert(id);
      }
      available_ = true;
      const bool recent = TimeOf(message.observed_at()) >= fresh_after_;
      fresh_ = fresh_ || recent;
      stale_snapshot_ = !fresh_;
      break;
    }
    case WatchJobsResponse::CHANGES:
      available_ = true;
      for (const JobChange& change : message.changes()) {
        if (change.type() == JobChange::DELETED) {
          EraseLocked(change.job().job_id(), changed);
        } else {
          PutLocked(change.job(), changed);
        }
      }
      break;
    case WatchJobsResponse::SLURM_UNAVAILABLE:
      available_ = false;
      break;
    default:
      break;
  }
  return changed;
}

void JobTable::StreamEnded() {
  absl::MutexLock lock(&mutex_);
  pending_snapshot_.clear();
  stale_snapshot_ = false;
}

void JobTable::SetJobUser(std::string user) {
  absl::MutexLock lock(&mutex_);
  job_user_ = std::move(user);
}

void JobTable::NoteSubmitted(const std::string& pod_key, const tidepool::v1::SlurmJob& job) {
  absl::MutexLock lock(&mutex_);
  if (jobs_.contains(job.job_id())) return;  // the watch was first
  jobs_[job.job_id()] = {pod_key, job};
  by_pod_[pod_key].insert(job.job_id());
  unconfirmed_[job.job_id()] = {pod_key, job};
}

std::vector<tidepool::v1::SlurmJob> JobTable::JobsOf(const std::string& pod_key) {
  absl::MutexLock lock(&mutex_);
  std::vector<tidepool::v1::SlurmJob> out;
  auto ids = by_pod_.find(pod_key);
  if (ids == by_pod_.end()) return out;
  for (uint32_t id : ids->second) {
    if (auto job = jobs_.find(id); job != jobs_.end()) out.push_back(job->second.job);
  }
  return out;
}

std::optional<std::pair<std::string, tidepool::v1::SlurmJob>> JobTable::Find(uint32_t id) {
  absl::MutexLock lock(&mutex_);
  auto job = jobs_.find(id);
  if (job == jobs_.end()) return std::nullopt;
  return std::make_pair(job->second.pod_key, job->second.job);
}

std::vector<std::string> JobTable::PodKeys() {
  absl::MutexLock lock(&mutex_);
  std::vector<std::string> keys;
  for (const auto& [key, ids] : by_pod_) keys.push_back(key);
  return keys;
}

bool JobTable::fresh() {
  absl::MutexLock lock(&mutex_);
  return fresh_ && available_;
}

bool JobTable::stale_snapshot() {
  absl::MutexLock lock(&mutex_);
  return stale_snapshot_;
}

}  // namespace tidepool::podsched

#include "job_watch.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/log.h"

namespace tidepool::podsched {
namespace {

constexpr absl::Duration kFirstBackoff = absl::Milliseconds(250);
constexpr absl::Duration kMaxBackoff = absl::Seconds(10);
constexpr char kStaleSnapshot[] = "snapshot predates this process";

}  // namespace

void JobWatch::Start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { Loop(); });
}

void JobWatch::Stop() {
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = true;
    if (stream_ != nullptr) stream_->Cancel();
  }
  if (thread_.joinable()) thread_.join();
}

std::string JobWatch::problem() {
  absl::MutexLock lock(&mutex_);
  return problem_;
}

void JobWatch::SetProblem(std::string problem) {
  absl::MutexLock lock(&mutex_);
  problem_ = std::move(problem);
}

bool JobWatch::WaitUnlessStopped(absl::Duration duration) {
  absl::MutexLock lock(&mutex_);
  auto stopping = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return stopping_; };
  mutex_.AwaitWithTimeout(absl::Condition(&stopping), duration);
  return !stopping_;
}

void JobWatch::Loop() {
  absl::Duration backoff = kFirstBackoff;
  while (true) {
    const absl::Time started = absl::Now();
    const std::string ended = WatchOnce();
    table_.StreamEnded();
    if (ended == kStaleSnapshot) {
      backoff = kFirstBackoff;  // the syncer polls again on a new watch: ask soon
    } else {
      SetProblem(absl::StrCat("slurm-syncer job watch: ", ended));
      common::LogWarn("job_watch_ended", {{"reason", ended}});
      if (absl::Now() - started > kMaxBackoff) backoff = kFirstBackoff;
    }
    if (!WaitUnlessStopped(backoff)) return;
    backoff = std::min(backoff * 2, kMaxBackoff);
  }
}

std::string JobWatch::WatchOnce() {
  absl::StatusOr<std::string> job_user = syncer_.JobUser();
  if (!job_user.ok()) return std::string(job_user.status().message());
  table_.SetJobUser(*std::move(job_user));
  std::unique_ptr<JobWatchStream> stream = syncer_.Watch();
  if (stream == nullptr) return "no watch stream";
  {
    absl::MutexLock lock(&mutex_);
    if (stopping_) {
      stream->Cancel();
    } else {
      stream_ = stream.get();
    }
  }
  bool stale = false;
  tidepool::v1::WatchJobsResponse message;
  while (stream->Read(message)) {
    const bool was_fresh = table_.fresh();
    const std::set<std::string> changed = table_.Apply(message);
    const bool snapshot =
        message.kind() == tidepool::v1::WatchJobsResponse::SNAPSHOT && message.snapshot_complete();
    // Syncs skip what they would decide on the job view while it is not fresh (Slurm
    // unavailable), without a requeue: when it is fresh again (the syncer's empty update
    // after an outage), every key is looked at, or a pod whose group job was cancelled
    // meanwhile waits for an unrelated event.
    const bool everything = snapshot || (!was_fresh && table_.fresh());
    if (table_.stale_snapshot()) {
      stale = true;
      stream->Cancel();
      continue;
    }
    if (snapshot) SetProblem("");
    if (message.kind() == tidepool::v1::WatchJobsResponse::SLURM_UNAVAILABLE) {
      SetProblem(absl::StrCat("Slurm unavailable: ", message.unavailable_reason()));
    } else if (message.kind() == tidepool::v1::WatchJobsResponse::CHANGES) {
      SetProblem("");
    }
    if (!changed.empty() || everything) on_change_(changed, everything);
  }
  const absl::Status status = stream->Finish();
  absl::MutexLock lock(&mutex_);
  stream_ = nullptr;
  if (stale) return kStaleSnapshot;
  if (stopping_) return "stopped";
  return status.ok() ? "watch ended" : std::string(status.message());
}

}  // namespace tidepool::podsched

#include "job_poller.h"

#include <map>
#include <string>
#include <utility>

#include "absl/time/clock.h"
#include "common/log.h"
#include "common/metrics.h"

namespace tidepool::syncer {
namespace {

constexpr absl::Duration kFollowFor = absl::Seconds(5);
constexpr absl::Duration kFollowInterval = absl::Milliseconds(100);
constexpr absl::Duration kFullReadEvery = absl::Minutes(1);
// A scheduling pass starts many jobs at once; each needs a GET job/{id} for its nodes.
// Four at a time read a burst of 50 about twice as fast as one by one on a 2-core
// machine, without taking more of slurmrestd's threads (20 by default) than a client
// should.
constexpr int kParallelJobReads = 4;

}  // namespace

JobPoller::JobPoller(SlurmGateway& slurm, JobFeed& feed, absl::Duration interval,
                     prometheus::Registry& registry)
    : slurm_(slurm),
      feed_(feed),
      interval_(interval),
      polls_(prometheus::BuildCounter()
                 .Name(common::MetricName("slurm-syncer", "job_polls_total"))
                 .Help("Job polls of slurmrestd (only while WatchJobs has watchers) by result")
                 .Register(registry)),
      view_({.states = [&slurm] { return slurm.GetJobStates(); },
             .all = [&slurm] { return slurm.GetJobs(); },
             .one = [&slurm](slurm::rest::JobId id) { return slurm.GetJob(id); }},
            kFullReadEvery, kParallelJobReads) {
  common::AddZeroSeries(polls_, {{"result", {"changed", "unchanged", "error"}}});
}

void JobPoller::Start() {
  worker_ = std::make_unique<common::PeriodicWorker>(interval_, [this] { PollOnce(); });
}

void JobPoller::Stop() { worker_.reset(); }

void JobPoller::Wake() {
  if (worker_ != nullptr) worker_->Wake();
}

void JobPoller::FollowSubmitted(slurm::rest::JobId id,
                                std::optional<slurm::rest::Job> as_submitted) {
  {
    absl::MutexLock lock(&mutex_);
    followed_[id] = {.until = absl::Now() + kFollowFor, .as_submitted = std::move(as_submitted)};
  }
  Wake();
}

void JobPoller::ForgetStarted(const std::vector<slurm::rest::Job>& jobs) {
  absl::MutexLock lock(&mutex_);
  if (followed_.empty()) return;
  const absl::Time now = absl::Now();
  for (const slurm::rest::Job& job : jobs) {
    auto it = followed_.find(job.id);
    if (it != followed_.end() && !job.Pending()) followed_.erase(it);
  }
  std::erase_if(followed_, [&](const auto& entry) { return entry.second.until <= now; });
  if (!followed_.empty() && worker_ != nullptr) worker_->WakeWithin(kFollowInterval);
}

void JobPoller::PollOnce() {
  if (feed_.subscriber_count() == 0) {
    if (feed_.synced()) feed_.Reset();
    view_.Reset();
    absl::MutexLock lock(&mutex_);
    followed_.clear();
    return;
  }
  const absl::Time started = absl::Now();
  bool changed = false;  // by this poll's progress too
  std::map<slurm::rest::JobId, slurm::rest::Job> just_submitted;
  {
    absl::MutexLock lock(&mutex_);
    for (const auto& [id, followed] : followed_) {
      if (followed.until > started && followed.as_submitted.has_value()) {
        just_submitted.insert_or_assign(id, *followed.as_submitted);
      }
    }
  }
  absl::StatusOr<std::vector<slurm::rest::Job>> jobs =
      view_.Refresh(started, just_submitted, [&](std::vector<slurm::rest::Job> so_far) {
        ForgetStarted(so_far);
        changed |= !feed_.Apply(std::move(so_far), started).empty();
      });
  if (!jobs.ok()) {
    polls_.Add({{"result", "error"}}).Increment();
    if (!feed_.unavailable_reason().has_value()) {
      common::LogWarn("slurm_jobs_unreadable", {{"error", jobs.status()}});
    }
    feed_.MarkUnavailable(std::string(jobs.status().message()), started);
    return;
  }
  ForgetStarted(*jobs);
  changed |= !feed_.Apply(*std::move(jobs), started).empty();
  polls_.Add({{"result", changed ? "changed" : "unchanged"}}).Increment();
}

}  // namespace tidepool::syncer

#include "job_view.h"

#include <algorithm>
#include <set>
#include <utility>

namespace tidepool::syncer {
namespace {

using slurm::rest::Job;
using slurm::rest::JobId;
using slurm::rest::JobStateEntry;

// One GET job/{id} costs slurmrestd about as much as eight jobs of GET jobs/: past that
// many changed jobs (and at least this many), one full read is cheaper. Single reads go
// out as they arrive (Progress), so up to this many are worth it even when a full read
// would cost a little less.
constexpr size_t kMinReadsBeforeFull = 64;
constexpr size_t kJobsPerSingleRead = 8;
constexpr size_t kReadsPerProgress = 8;
constexpr absl::Duration kLongestFullReadDelay = absl::Minutes(4);

bool OnlyPending(const std::vector<std::string>& state) {
  return state.size() == 1 && state.front() == "PENDING";
}

}  // namespace

JobView::JobView(Reads reads, absl::Duration full_read_every)
    : reads_(std::move(reads)), full_read_every_(full_read_every) {}

void JobView::Reset() {
  next_full_read_ = absl::InfinitePast();
  listed_.clear();
  jobs_.clear();
}

absl::StatusOr<JobView::Refreshed> JobView::Refresh(absl::Time now, const Progress& progress,
                                                    bool hurried) {
  absl::StatusOr<std::vector<JobStateEntry>> listed = reads_.states();
  if (!listed.ok()) {
    return listed.status();
  }
  Refreshed refreshed;
  const std::vector<JobId> changed = Changed(*listed);
  const size_t most_single_reads = std::max(kMinReadsBeforeFull, jobs_.size() / kJobsPerSingleRead);
  const bool full_read_due =
      now >= next_full_read_ && (!hurried || now >= next_full_read_ + kLongestFullReadDelay);
  if (full_read_due || changed.size() > most_single_reads) {
    if (absl::Status read = ReadAll(now); !read.ok()) {
      return read;
    }
  } else {
    if (absl::Status read = ReadChanged(changed, progress); !read.ok()) {
      return read;
    }
    refreshed.kind = ReadKind::kChangedOnly;
    refreshed.jobs_read_again = static_cast<int>(changed.size());
  }
  Remember(*listed);
  refreshed.jobs = Jobs();
  return refreshed;
}

absl::Status JobView::ReadAll(absl::Time now) {
  absl::StatusOr<slurm::rest::JobList> all = reads_.all();
  if (!all.ok()) {
    return all.status();
  }
  jobs_.clear();
  for (Job& job : all->jobs) {
    jobs_.insert_or_assign(job.id, std::move(job));
  }
  next_full_read_ = now + full_read_every_;
  return absl::OkStatus();
}

std::vector<JobId> JobView::Changed(const std::vector<JobStateEntry>& listed) const {
  std::set<JobId> moved;
  std::set<JobId> pending;
  for (const JobStateEntry& entry : listed) {
    auto before = listed_.find(entry.text);
    if (before != listed_.end() && before->second == entry.state) {
      continue;
    }
    (OnlyPending(entry.state) ? pending : moved).insert(entry.id);
  }
  std::vector<JobId> changed(moved.begin(), moved.end());
  for (JobId id : pending) {
    if (!moved.contains(id)) {
      changed.push_back(id);
    }
  }
  return changed;
}

absl::Status JobView::ReadChanged(const std::vector<JobId>& changed, const Progress& progress) {
  for (size_t i = 0; i < changed.size(); ++i) {
    if (progress != nullptr && i > 0 && i % kReadsPerProgress == 0) {
      progress(Jobs());
    }
    const JobId id = changed[i];
    absl::StatusOr<Job> job = reads_.one(id);
    if (job.ok()) {
      jobs_.insert_or_assign(id, *std::move(job));
    } else if (absl::IsNotFound(job.status())) {
      jobs_.erase(id);  // purged between the two reads
    } else {
      return job.status();
    }
  }
  return absl::OkStatus();
}

void JobView::Remember(const std::vector<JobStateEntry>& listed) {
  ListedStates now;
  std::set<JobId> ids;
  for (const JobStateEntry& entry : listed) {
    ids.insert(entry.id);
    // A job listed yet not read (submitted between the two reads of a full read, or
    // purged before its read) is read on the next refresh.
    if (jobs_.contains(entry.id)) {
      now.insert_or_assign(entry.text, entry.state);
    }
  }
  std::erase_if(jobs_, [&](const auto& job) { return !ids.contains(job.first); });
  listed_ = std::move(now);
}

std::vector<Job> JobView::Jobs() const {
  std::vector<Job> jobs;
  jobs.reserve(jobs_.size());
  for (const auto& [id, job] : jobs_) {
    jobs.push_back(job);
  }
  return jobs;
}

}  // namespace tidepool::syncer

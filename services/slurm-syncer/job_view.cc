#include "job_view.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <set>
#include <thread>
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

}  // namespace

JobView::JobView(Reads reads, absl::Duration full_read_every, int parallel_reads)
    : reads_(std::move(reads)),
      full_read_every_(full_read_every),
      parallel_reads_(static_cast<size_t>(std::max(parallel_reads, 1))) {}

void JobView::Reset() {
  next_full_read_ = absl::InfinitePast();
  listed_.clear();
  jobs_.clear();
  unreadable_.clear();
}

absl::StatusOr<std::vector<Job>> JobView::Refresh(absl::Time now,
                                                  const std::map<JobId, Job>& just_submitted,
                                                  const Progress& progress) {
  absl::StatusOr<std::vector<JobStateEntry>> listed = reads_.states();
  if (!listed.ok()) {
    return listed.status();
  }
  const bool hurried = !just_submitted.empty();
  Adopt(*listed, just_submitted);
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
  }
  Remember(*listed);
  return Jobs();
}

absl::Status JobView::ReadAll(absl::Time now) {
  absl::StatusOr<slurm::rest::JobList> all = reads_.all();
  if (!all.ok()) {
    return all.status();
  }
  jobs_.clear();
  unreadable_.clear();
  for (Job& job : all->jobs) {
    jobs_.insert_or_assign(job.id, std::move(job));
  }
  next_full_read_ = now + full_read_every_;
  return absl::OkStatus();
}

void JobView::Adopt(const std::vector<JobStateEntry>& listed,
                    const std::map<JobId, Job>& just_submitted) {
  for (const JobStateEntry& entry : listed) {
    auto submitted = just_submitted.find(entry.id);
    if (submitted == just_submitted.end() || !entry.Pending() || jobs_.contains(entry.id) ||
        listed_.contains(entry.text)) {
      continue;
    }
    jobs_.insert_or_assign(entry.id, submitted->second);
    listed_.insert_or_assign(entry.text, entry.state);
  }
}

std::vector<JobId> JobView::Changed(const std::vector<JobStateEntry>& listed) const {
  std::set<JobId> moved;
  std::set<JobId> pending;
  for (const JobStateEntry& entry : listed) {
    auto before = listed_.find(entry.text);
    if (before != listed_.end() && before->second == entry.state) {
      continue;
    }
    (entry.Pending() ? pending : moved).insert(entry.id);
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
  for (size_t first = 0; first < changed.size(); first += kReadsPerProgress) {
    if (progress != nullptr && first > 0) {
      progress(Jobs());
    }
    const size_t last = std::min(changed.size(), first + kReadsPerProgress);
    const std::vector<JobId> batch(changed.begin() + static_cast<std::ptrdiff_t>(first),
                                   changed.begin() + static_cast<std::ptrdiff_t>(last));
    if (absl::Status read = ReadBatch(batch); !read.ok()) {
      return read;
    }
  }
  return absl::OkStatus();
}

absl::Status JobView::ReadBatch(const std::vector<JobId>& ids) {
  std::vector<absl::StatusOr<Job>> read(ids.size(), absl::UnknownError("not read"));
  std::atomic<size_t> next{0};
  auto read_some = [&] {
    for (size_t i = next++; i < ids.size(); i = next++) {
      read[i] = reads_.one(ids[i]);
    }
  };
  {
    std::vector<std::jthread> helpers;
    for (size_t n = 1; n < std::min(parallel_reads_, ids.size()); ++n) {
      helpers.emplace_back(read_some);
    }
    read_some();
  }  // the helpers join here
  absl::Status first_failure;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (read[i].ok()) {
      jobs_.insert_or_assign(ids[i], *std::move(read[i]));
      unreadable_.erase(ids[i]);
    } else if (absl::IsNotFound(read[i].status())) {
      jobs_.erase(ids[i]);  // purged between the two reads
      unreadable_.insert(ids[i]);
    } else {
      first_failure.Update(read[i].status());
    }
  }
  return first_failure;
}

void JobView::Remember(const std::vector<JobStateEntry>& listed) {
  ListedStates now;
  std::set<JobId> ids;
  for (const JobStateEntry& entry : listed) {
    ids.insert(entry.id);
    // A job listed yet not read (submitted between the two reads of a full read) is read
    // on the next refresh.
    if (jobs_.contains(entry.id) || unreadable_.contains(entry.id)) {
      now.insert_or_assign(entry.text, entry.state);
    }
  }
  std::erase_if(jobs_, [&](const auto& job) { return !ids.contains(job.first); });
  std::erase_if(unreadable_, [&](JobId id) { return !ids.contains(id); });
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

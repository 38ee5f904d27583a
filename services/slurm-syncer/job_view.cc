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
// many changed jobs (and at least this many), one full read is cheaper.
constexpr size_t kMinReadsBeforeFull = 16;
constexpr size_t kJobsPerSingleRead = 8;

}  // namespace

JobView::JobView(Reads reads, absl::Duration full_read_every)
    : reads_(std::move(reads)), full_read_every_(full_read_every) {}

void JobView::Reset() {
  next_full_read_ = absl::InfinitePast();
  listed_.clear();
  jobs_.clear();
}

absl::StatusOr<JobView::Refreshed> JobView::Refresh(absl::Time now) {
  absl::StatusOr<std::vector<JobStateEntry>> listed = reads_.states();
  if (!listed.ok()) return listed.status();
  Refreshed refreshed;
  const std::vector<JobId> changed = Changed(*listed);
  const size_t most_single_reads = std::max(kMinReadsBeforeFull, jobs_.size() / kJobsPerSingleRead);
  if (now >= next_full_read_ || changed.size() > most_single_reads) {
    if (absl::Status read = ReadAll(now); !read.ok()) return read;
  } else {
    if (absl::Status read = ReadChanged(changed); !read.ok()) return read;
    refreshed.kind = ReadKind::kChangedOnly;
    refreshed.jobs_read_again = static_cast<int>(changed.size());
  }
  Remember(*listed);
  refreshed.jobs = Jobs();
  return refreshed;
}

absl::Status JobView::ReadAll(absl::Time now) {
  absl::StatusOr<slurm::rest::JobList> all = reads_.all();
  if (!all.ok()) return all.status();
  jobs_.clear();
  for (Job& job : all->jobs) jobs_.insert_or_assign(job.id, std::move(job));
  next_full_read_ = now + full_read_every_;
  return absl::OkStatus();
}

std::vector<JobId> JobView::Changed(const std::vector<JobStateEntry>& listed) const {
  std::set<JobId> changed;
  for (const JobStateEntry& entry : listed) {
    auto before = listed_.find(entry.text);
    if (before == listed_.end() || before->second != entry.state) changed.insert(entry.id);
  }
  return {changed.begin(), changed.end()};
}

absl::Status JobView::ReadChanged(const std::vector<JobId>& changed) {
  for (JobId id : changed) {
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
    if (jobs_.contains(entry.id)) now.insert_or_assign(entry.text, entry.state);
  }
  std::erase_if(jobs_, [&](const auto& job) { return !ids.contains(job.first); });
  listed_ = std::move(now);
}

std::vector<Job> JobView::Jobs() const {
  std::vector<Job> jobs;
  jobs.reserve(jobs_.size());
  for (const auto& [id, job] : jobs_) jobs.push_back(job);
  return jobs;
}

}  // namespace tidepool::syncer

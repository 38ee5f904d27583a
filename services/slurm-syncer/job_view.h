#pragma once

// Slurm's jobs as WatchJobs shows them, kept current at little cost. GET jobs/ dumps every
// job with every field (about 14 KB each in v0.0.45; 1,000 jobs take slurmrestd 0.7 s),
// so it is read only at the start, once a minute, and when many jobs changed at once.
// Between, each refresh reads GET jobs/state/ (ids and states only, ~50× cheaper) and
// reads again, one by one, only the jobs that are new or whose state changed; jobs no
// longer listed are dropped. Other fields of a job whose state did not change (a pending
// job's reason, a time limit changed with scontrol) reach the view by the next full read.

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "slurm/rest/model.h"

namespace tidepool::syncer {

class JobView {
 public:
  // The calls it makes (SlurmGateway's, or a test's).
  struct Reads {
    std::function<absl::StatusOr<std::vector<slurm::rest::JobStateEntry>>()> states;
    std::function<absl::StatusOr<slurm::rest::JobList>()> all;
    std::function<absl::StatusOr<slurm::rest::Job>(slurm::rest::JobId)> one;
  };
  // Jobs as read so far, while a refresh reads many one by one.
  using Progress = std::function<void(std::vector<slurm::rest::Job>)>;

  // `parallel_reads`: single reads in flight at once (`reads.one` is called from that
  // many threads); slurmrestd serves requests on several threads, and a burst of jobs
  // started by one scheduling pass reaches watchers sooner.
  JobView(Reads reads, absl::Duration full_read_every, int parallel_reads = 1);

  // Brings the view up to date and returns it. Jobs that left PENDING are read before new
  // pending ones, and `progress` (if set) gets the view after every few single reads, so
  // the first jobs to start are not held back by the last. On a failure the view keeps
  // what it had and the jobs not read are read again on the next call.
  //
  // `just_submitted`: jobs this syncer submitted a moment ago, as submitted (PENDING). A
  // new PENDING entry among them joins the view as that record instead of being read:
  // at 50 submissions a second these reads were a third of slurmrestd's work, and the
  // machine's CPU is what delays the binds. It is read once its state changes, and
  // whole at the next full read. While any are passed the once-a-minute full read waits,
  // up to four minutes more: under load it takes seconds, and nothing reaches watchers
  // meanwhile.
  absl::StatusOr<std::vector<slurm::rest::Job>> Refresh(
      absl::Time now, const std::map<slurm::rest::JobId, slurm::rest::Job>& just_submitted = {},
      const Progress& progress = nullptr);
  // Forgets everything: the next Refresh is a full read.
  void Reset();

 private:
  using ListedStates = std::map<std::string, std::vector<std::string>>;

  absl::Status ReadAll(absl::Time now);
  // The jobs to read again (new entries, changed states), each once, those no longer
  // pending first.
  // New PENDING entries of jobs just submitted join the view as submitted.
  void Adopt(const std::vector<slurm::rest::JobStateEntry>& listed,
             const std::map<slurm::rest::JobId, slurm::rest::Job>& just_submitted);
  std::vector<slurm::rest::JobId> Changed(
      const std::vector<slurm::rest::JobStateEntry>& listed) const;
  absl::Status ReadChanged(const std::vector<slurm::rest::JobId>& changed,
                           const Progress& progress);
  // Reads `ids` (up to parallel_reads_ at once) into the view.
  absl::Status ReadBatch(const std::vector<slurm::rest::JobId>& ids);
  void Remember(const std::vector<slurm::rest::JobStateEntry>& listed);
  std::vector<slurm::rest::Job> Jobs() const;

  const Reads reads_;
  const absl::Duration full_read_every_;
  const size_t parallel_reads_;
  absl::Time next_full_read_ = absl::InfinitePast();
  ListedStates listed_;  // by the entry's text: what the last refresh saw
  std::map<slurm::rest::JobId, slurm::rest::Job> jobs_;
  // Listed by jobs/state yet NotFound when read (purged between the two reads): not read
  // again until its listed state changes.
  std::set<slurm::rest::JobId> unreadable_;
};

}  // namespace tidepool::syncer

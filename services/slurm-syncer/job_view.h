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
  enum class ReadKind { kFull, kChangedOnly };
  struct Refreshed {
    ReadKind kind = ReadKind::kFull;
    int jobs_read_again = 0;  // kChangedOnly: how many GET job/{id}
    std::vector<slurm::rest::Job> jobs;
  };

  // Jobs as read so far, while a refresh reads many one by one.
  using Progress = std::function<void(std::vector<slurm::rest::Job>)>;

  JobView(Reads reads, absl::Duration full_read_every);

  // Brings the view up to date. Jobs that left PENDING are read before new pending ones,
  // and `progress` (if set) gets the view after every few single reads, so the first
  // jobs to start are not held back by the last. On a failure the view keeps what it had
  // and the jobs not read are read again on the next call. While `hurried` (jobs just
  // submitted wait to start) the once-a-minute full read waits, up to four minutes more:
  // under load it takes seconds, and nothing reaches watchers meanwhile.
  absl::StatusOr<Refreshed> Refresh(absl::Time now, const Progress& progress = nullptr,
                                    bool hurried = false);
  // Forgets everything: the next Refresh is a full read.
  void Reset();

 private:
  using ListedStates = std::map<std::string, std::vector<std::string>>;

  absl::Status ReadAll(absl::Time now);
  // The jobs to read again (new entries, changed states), each once, those no longer
  // pending first.
  std::vector<slurm::rest::JobId> Changed(
      const std::vector<slurm::rest::JobStateEntry>& listed) const;
  absl::Status ReadChanged(const std::vector<slurm::rest::JobId>& changed,
                           const Progress& progress);
  void Remember(const std::vector<slurm::rest::JobStateEntry>& listed);
  std::vector<slurm::rest::Job> Jobs() const;

  const Reads reads_;
  const absl::Duration full_read_every_;
  absl::Time next_full_read_ = absl::InfinitePast();
  ListedStates listed_;  // by the entry's text: what the last refresh saw
  std::map<slurm::rest::JobId, slurm::rest::Job> jobs_;
};

}  // namespace tidepool::syncer

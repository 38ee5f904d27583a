#pragma once

// The placeholder jobs as slurm-syncer's WatchJobs stream reports them, indexed by the
// pod key their comment names (job_identity.h). A stream's snapshot replaces the table
// when complete; changes then update it. Only jobs of the syncer's Slurm user count: any
// user can name a job "tidepool-pod-<uid>" and comment it "pod <ns>/<name>", and such a
// job must neither be cancelled as an orphan nor steer where a pod is bound.
// Thread-safe: the watch thread writes, sync workers read.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "tidepool/v1/syncer.pb.h"

namespace tidepool::podsched {

class JobTable {
 public:
  // `fresh_after`: a snapshot makes the table fresh only when Slurm was read at or after
  // this time (the process start), so it holds every job an earlier run submitted.
  explicit JobTable(absl::Time fresh_after) : fresh_after_(fresh_after) {}

  // Applies one stream message; returns the pod keys whose jobs changed. A snapshot is
  // collected until snapshot_complete, then replaces the table.
  std::set<std::string> Apply(const tidepool::v1::WatchJobsResponse& message);
  // The stream ended: a new one starts with a new snapshot.
  void StreamEnded();
  // The Slurm user placeholder jobs belong to, learnt before each stream starts: jobs of
  // anyone else are not placeholder jobs, whatever they are called.
  void SetJobUser(std::string user);
  // A job this process just submitted, known before the watch reports it.
  void NoteSubmitted(const std::string& pod_key, const tidepool::v1::SlurmJob& job);

  std::vector<tidepool::v1::SlurmJob> JobsOf(const std::string& pod_key);
  // The key job `id` is filed under (a pod's or a group's, job_identity.h) and the job.
  std::optional<std::pair<std::string, tidepool::v1::SlurmJob>> Find(uint32_t id);
  std::vector<std::string> PodKeys();
  // A complete snapshot taken after fresh_after has been applied, and Slurm is reachable.
  bool fresh();
  // A complete snapshot was read, but one taken before fresh_after: start a new stream.
  bool stale_snapshot();

 private:
  void PutLocked(const tidepool::v1::SlurmJob& job, std::set<std::string>& changed)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void EraseLocked(uint32_t job_id, std::set<std::string>& changed)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void FileLocked(const std::string& pod_key, const tidepool::v1::SlurmJob& job,
                  std::set<std::string>& changed) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  struct FiledJob {
    std::string pod_key;  // the pod it was first filed for
    tidepool::v1::SlurmJob job;
  };

  const absl::Time fresh_after_;
  absl::Mutex mutex_;
  std::string job_user_ ABSL_GUARDED_BY(mutex_);
  std::map<uint32_t, FiledJob> jobs_ ABSL_GUARDED_BY(mutex_);
  std::map<std::string, std::set<uint32_t>> by_pod_ ABSL_GUARDED_BY(mutex_);
  std::vector<tidepool::v1::SlurmJob> pending_snapshot_ ABSL_GUARDED_BY(mutex_);
  // Submitted here and not yet seen on the watch: kept across a snapshot that predates
  // them, so a reconnect never forgets a job (and submits the pod's job again).
  std::map<uint32_t, std::pair<std::string, tidepool::v1::SlurmJob>> unconfirmed_
      ABSL_GUARDED_BY(mutex_);
  bool fresh_ ABSL_GUARDED_BY(mutex_) = false;
  bool stale_snapshot_ ABSL_GUARDED_BY(mutex_) = false;
  bool available_ ABSL_GUARDED_BY(mutex_) = true;
};

}  // namespace tidepool::podsched

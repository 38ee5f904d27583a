#include "job_table.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::podsched {
namespace {

using tidepool::v1::JobChange;
using tidepool::v1::SlurmJob;
using tidepool::v1::WatchJobsResponse;

const absl::Time kStart = absl::FromUnixSeconds(1000);
constexpr char kJobUser[] = "slurm";

SlurmJob Job(uint32_t id, const std::string& name, const std::string& comment,
             const std::string& user = kJobUser) {
  SlurmJob job;
  job.set_job_id(id);
  job.set_user(user);
  job.set_name(name);
  job.set_comment(comment);
  job.add_states("PENDING");
  return job;
}

WatchJobsResponse Message(WatchJobsResponse::Kind kind, std::vector<SlurmJob> jobs,
                          absl::Time observed, bool complete = true,
                          JobChange::Type type = JobChange::ADDED) {
  WatchJobsResponse m;
  m.set_kind(kind);
  m.set_snapshot_complete(complete);
  m.mutable_observed_at()->set_seconds(absl::ToUnixSeconds(observed));
  for (const SlurmJob& job : jobs) {
    JobChange* change = m.add_changes();
    change->set_type(type);
    *change->mutable_job() = job;
  }
  return m;
}

TEST_CASE("placeholder jobs are found by pod key; other jobs are ignored") {
  JobTable table(kStart);
  table.SetJobUser(kJobUser);
  std::set<std::string> changed =
      table.Apply(Message(WatchJobsResponse::SNAPSHOT,
                          {Job(1, "tidepool-pod-u1", "pod ml/a"), Job(2, "batch", "pod ml/a"),
                           Job(3, "tidepool-pod-u3", "mine")},
                          kStart + absl::Seconds(1)));
  CHECK(changed == std::set<std::string>{"ml/a"});
  REQUIRE(table.JobsOf("ml/a").size() == 1);
  CHECK(table.JobsOf("ml/a")[0].job_id() == 1);
  CHECK(table.PodKeys() == std::vector<std::string>{"ml/a"});
  CHECK(table.fresh());
}

TEST_CASE("a job of another user is no placeholder job, whatever its name and comment") {
  JobTable table(kStart);
  table.SetJobUser(kJobUser);
  table.Apply(Message(
      WatchJobsResponse::SNAPSHOT,
      {Job(1, "tidepool-pod-u1", "pod ml/a"), Job(2, "tidepool-pod-u1", "pod ml/a", "mallory"),
       Job(3, "tidepool-pod-u9", "pod ml/gone", "mallory")},
      kStart + absl::Seconds(1)));
  REQUIRE(table.JobsOf("ml/a").size() == 1);
  CHECK(table.JobsOf("ml/a")[0].job_id() == 1);
  CHECK(table.JobsOf("ml/gone").empty());
  CHECK(table.PodKeys() == std::vector<std::string>{"ml/a"});
  // Nor does a change make one of it.
  CHECK(table
            .Apply(Message(WatchJobsResponse::CHANGES,
                           {Job(4, "tidepool-group-f00d", "group ml/train", "mallory")},
                           kStart + absl::Seconds(2)))
            .empty());
  CHECK(table.PodKeys() == std::vector<std::string>{"ml/a"});

  // The syncer runs as another user now: the old user's jobs stop counting with the next
  // snapshot.
  table.SetJobUser("mallory");
  table.Apply(Message(
      WatchJobsResponse::SNAPSHOT,
      {Job(1, "tidepool-pod-u1", "pod ml/a"), Job(3, "tidepool-pod-u9", "pod ml/gone", "mallory")},
      kStart + absl::Seconds(3)));
  CHECK(table.PodKeys() == std::vector<std::string>{"ml/gone"});
}

TEST_CASE("a snapshot read before the start is not fresh; a split snapshot applies when complete") {
  JobTable table(kStart);
  table.SetJobUser(kJobUser);
  table.Apply(Message(WatchJobsResponse::SNAPSHOT, {Job(1, "tidepool-pod-u1", "pod ml/a")},
                      kStart - absl::Seconds(1), /*complete=*/false));
  CHECK(table.JobsOf("ml/a").empty());
  table.Apply(Message(WatchJobsResponse::SNAPSHOT, {}, kStart - absl::Seconds(1)));
  CHECK(table.JobsOf("ml/a").size() == 1);
  CHECK_FALSE(table.fresh());
  CHECK(table.stale_snapshot());
  table.StreamEnded();
  table.Apply(Message(WatchJobsResponse::SNAPSHOT, {}, kStart));
  CHECK(table.fresh());
  CHECK(table.JobsOf("ml/a").empty());
}

TEST_CASE("changes update and delete; Slurm unavailable makes the view not fresh") {
  JobTable table(kStart);
  table.SetJobUser(kJobUser);
  table.Apply(Message(WatchJobsResponse::SNAPSHOT, {}, kStart));
  SlurmJob running = Job(1, "tidepool-pod-u1", "pod ml/a");
  running.set_states(0, "RUNNING");
  table.Apply(Message(WatchJobsResponse::CHANGES, {running}, kStart, true, JobChange::MODIFIED));
  CHECK(table.JobsOf("ml/a")[0].states(0) == "RUNNING");
  CHECK(table.Apply(Message(WatchJobsResponse::CHANGES, {running}, kStart, true,
                            JobChange::DELETED)) == std::set<std::string>{"ml/a"});
  CHECK(table.JobsOf("ml/a").empty());
  table.Apply(Message(WatchJobsResponse::SLURM_UNAVAILABLE, {}, kStart));
  CHECK_FALSE(table.fresh());
}

TEST_CASE("a job submitted here survives a snapshot that predates it") {
  JobTable table(kStart);
  table.SetJobUser(kJobUser);
  table.Apply(Message(WatchJobsResponse::SNAPSHOT, {}, kStart));
  table.NoteSubmitted("ml/a", Job(4, "tidepool-pod-u1", "pod ml/a"));
  table.StreamEnded();
  table.Apply(Message(WatchJobsResponse::SNAPSHOT, {}, kStart + absl::Seconds(1)));
  REQUIRE(table.JobsOf("ml/a").size() == 1);
  table.Apply(Message(WatchJobsResponse::CHANGES, {Job(4, "tidepool-pod-u1", "pod ml/a")}, kStart));
  table.Apply(Message(WatchJobsResponse::SNAPSHOT, {}, kStart + absl::Seconds(2)));
  CHECK(table.JobsOf("ml/a").empty());
}

TEST_CASE("a job whose comment a person edits stays with its pod until Slurm drops it") {
  JobTable table(kStart);
  table.SetJobUser(kJobUser);
  const absl::Time t = kStart + absl::Seconds(1);
  table.Apply(Message(WatchJobsResponse::SNAPSHOT, {Job(1, "tidepool-pod-u1", "pod ml/a")}, t));
  // scontrol update jobid=1 comment=…: the job is still pod ml/a's.
  SlurmJob edited = Job(1, "tidepool-pod-u1", "pod ml/b");
  edited.set_states(0, "RUNNING");
  CHECK(table.Apply(Message(WatchJobsResponse::CHANGES, {edited}, t, true, JobChange::MODIFIED)) ==
        std::set<std::string>{"ml/a"});
  REQUIRE(table.JobsOf("ml/a").size() == 1);
  CHECK(table.JobsOf("ml/a")[0].states(0) == "RUNNING");
  CHECK(table.JobsOf("ml/b").empty());
  // A comment no pod key can be read from changes nothing either; nor does a new snapshot.
  table.Apply(Message(WatchJobsResponse::CHANGES, {Job(1, "tidepool-pod-u1", "none")}, t, true,
                      JobChange::MODIFIED));
  table.Apply(Message(WatchJobsResponse::SNAPSHOT, {edited}, t));
  CHECK(table.PodKeys() == std::vector<std::string>{"ml/a"});
  // Gone from Slurm: gone from the table, under no key.
  CHECK(table.Apply(Message(WatchJobsResponse::CHANGES, {edited}, t, true, JobChange::DELETED)) ==
        std::set<std::string>{"ml/a"});
  CHECK(table.PodKeys().empty());
  CHECK(table.JobsOf("ml/a").empty());
  CHECK(table.JobsOf("ml/b").empty());
}

}  // namespace
}  // namespace tidepool::podsched

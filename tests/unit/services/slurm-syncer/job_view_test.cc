#include "job_view.h"

#include <catch2/catch_test_macros.hpp>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace tidepool::syncer {
namespace {

using slurm::rest::Job;
using slurm::rest::JobId;
using slurm::rest::JobList;
using slurm::rest::JobStateEntry;

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);
const absl::Duration kFullEvery = absl::Minutes(1);

// Slurm as the view's three reads see it, counting them.
struct FakeSlurm {
  std::map<JobId, Job> jobs;
  // Array tasks listed under their record's id ("7_2", "7_3" → job 7).
  std::map<std::string, JobId> extra_entries;
  absl::Status fail;  // every read fails with it
  absl::Status fail_one;
  int full_reads = 0;
  std::vector<JobId> single_reads;

  void Put(JobId id, std::string state, std::string nodes = "") {
    Job& job = jobs[id];
    job.id = id;
    job.name = absl::StrCat("job-", id);
    job.state = {std::move(state)};
    job.nodes = std::move(nodes);
  }

  JobView::Reads Reads() {
    return {.states = [this]() -> absl::StatusOr<std::vector<JobStateEntry>> {
              if (!fail.ok()) {
                return fail;
              }
              std::vector<JobStateEntry> listed;
              for (const auto& [id, job] : jobs) {
                listed.push_back({.text = absl::StrCat(id), .id = id, .state = job.state});
              }
              for (const auto& [text, id] : extra_entries) {
                listed.push_back({.text = text, .id = id, .state = jobs.at(id).state});
              }
              return listed;
            },
            .all = [this]() -> absl::StatusOr<JobList> {
              if (!fail.ok()) {
                return fail;
              }
              ++full_reads;
              JobList list;
              for (const auto& [id, job] : jobs) {
                list.jobs.push_back(job);
              }
              return list;
            },
            .one = [this](JobId id) -> absl::StatusOr<Job> {
              if (!fail_one.ok()) {
                return fail_one;
              }
              single_reads.push_back(id);
              auto it = jobs.find(id);
              if (it == jobs.end()) {
                return absl::NotFoundError("no such job");
              }
              return it->second;
            }};
  }
};

std::map<JobId, Job> ById(const std::vector<Job>& jobs) {
  std::map<JobId, Job> by_id;
  for (const Job& job : jobs) {
    by_id[job.id] = job;
  }
  return by_id;
}

JobView::Refreshed RequireRefresh(JobView& view, absl::Time now) {
  absl::StatusOr<JobView::Refreshed> refreshed = view.Refresh(now);
  INFO(refreshed.status().ToString());
  REQUIRE(refreshed.ok());
  return *std::move(refreshed);
}

TEST_CASE("the first refresh reads every job; unchanged states read nothing more") {
  FakeSlurm slurm;
  slurm.Put(1, "RUNNING", "n-01");
  slurm.Put(2, "PENDING");
  JobView view(slurm.Reads(), kFullEvery);
  JobView::Refreshed first = RequireRefresh(view, kStart);
  CHECK(first.kind == JobView::ReadKind::kFull);
  CHECK(ById(first.jobs) == slurm.jobs);

  JobView::Refreshed second = RequireRefresh(view, kStart + absl::Seconds(1));
  CHECK(second.kind == JobView::ReadKind::kChangedOnly);
  CHECK(second.jobs_read_again == 0);
  CHECK(slurm.single_reads.empty());
  CHECK(slurm.full_reads == 1);
  CHECK(ById(second.jobs) == slurm.jobs);
}

TEST_CASE("a new job and a job whose state changed are read again, alone") {
  FakeSlurm slurm;
  for (JobId id = 1; id <= 40; ++id) {
    slurm.Put(id, "RUNNING", "n-01");
  }
  slurm.Put(41, "PENDING");
  JobView view(slurm.Reads(), kFullEvery);
  RequireRefresh(view, kStart);

  slurm.Put(41, "RUNNING", "n-07");  // started: now it has nodes
  slurm.Put(42, "PENDING");          // submitted
  slurm.jobs[3].comment = "changed, but not its state";
  JobView::Refreshed refreshed = RequireRefresh(view, kStart + absl::Seconds(1));
  CHECK(refreshed.kind == JobView::ReadKind::kChangedOnly);
  CHECK(slurm.single_reads == std::vector<JobId>{41, 42});
  const std::map<JobId, Job> seen = ById(refreshed.jobs);
  CHECK(seen.at(41).nodes == "n-07");
  CHECK(seen.at(42).state == std::vector<std::string>{"PENDING"});
  CHECK(seen.at(3).comment.empty());  // until the next full read

  JobView::Refreshed later = RequireRefresh(view, kStart + kFullEvery);
  CHECK(later.kind == JobView::ReadKind::kFull);
  CHECK(ById(later.jobs).at(3).comment == "changed, but not its state");
}

TEST_CASE("a job no longer listed leaves the view") {
  FakeSlurm slurm;
  slurm.Put(1, "COMPLETED");
  slurm.Put(2, "RUNNING");
  JobView view(slurm.Reads(), kFullEvery);
  RequireRefresh(view, kStart);
  slurm.jobs.erase(1);  // past MinJobAge
  JobView::Refreshed refreshed = RequireRefresh(view, kStart + absl::Seconds(1));
  CHECK(refreshed.jobs.size() == 1);
  CHECK(refreshed.jobs.front().id == 2);
  CHECK(slurm.single_reads.empty());
}

TEST_CASE("an array's entries are read once per job record") {
  FakeSlurm slurm;
  slurm.Put(7, "PENDING");
  slurm.extra_entries = {{"7_2", 7}, {"7_3", 7}};
  JobView view(slurm.Reads(), kFullEvery);
  RequireRefresh(view, kStart);
  slurm.Put(7, "RUNNING");
  RequireRefresh(view, kStart + absl::Seconds(1));
  CHECK(slurm.single_reads == std::vector<JobId>{7});
}

TEST_CASE("when many jobs changed, one full read replaces the single reads") {
  FakeSlurm slurm;
  for (JobId id = 1; id <= 100; ++id) {
    slurm.Put(id, "PENDING");
  }
  JobView view(slurm.Reads(), kFullEvery);
  RequireRefresh(view, kStart);
  for (JobId id = 1; id <= 65; ++id) {
    slurm.Put(id, "RUNNING");  // 65 > max(64, 100 / 8)
  }
  JobView::Refreshed refreshed = RequireRefresh(view, kStart + absl::Seconds(1));
  CHECK(refreshed.kind == JobView::ReadKind::kFull);
  CHECK(slurm.full_reads == 2);
  CHECK(slurm.single_reads.empty());
  CHECK(ById(refreshed.jobs) == slurm.jobs);
}

TEST_CASE("jobs that started are read before new pending ones, and go out every few reads") {
  FakeSlurm slurm;
  for (JobId id = 1; id <= 20; ++id) {
    slurm.Put(id, "PENDING");
  }
  JobView view(slurm.Reads(), kFullEvery);
  RequireRefresh(view, kStart);
  for (JobId id = 30; id <= 39; ++id) {
    slurm.Put(id, "PENDING");  // submitted
  }
  for (JobId id = 11; id <= 20; ++id) {
    slurm.Put(id, "RUNNING", "n");  // started
  }
  std::vector<std::vector<Job>> published;
  absl::StatusOr<JobView::Refreshed> refreshed = view.Refresh(
      kStart + absl::Seconds(1), [&](std::vector<Job> jobs) { published.push_back(jobs); });
  REQUIRE(refreshed.ok());
  REQUIRE(slurm.single_reads.size() == 20);
  CHECK(std::vector<JobId>(slurm.single_reads.begin(), slurm.single_reads.begin() + 10) ==
        std::vector<JobId>{11, 12, 13, 14, 15, 16, 17, 18, 19, 20});
  // After reads 8 and 16; the last ones come with the result.
  REQUIRE(published.size() == 2);
  const std::map<JobId, Job> first = ById(published[0]);
  CHECK(first.at(11).nodes == "n");
  CHECK(first.at(19).nodes.empty());  // not read yet: as before
  CHECK_FALSE(first.contains(30));
  CHECK(ById(refreshed->jobs) == slurm.jobs);
}

TEST_CASE("a job purged before its read leaves the view; other failures keep the view and retry") {
  FakeSlurm slurm;
  slurm.Put(1, "RUNNING");
  JobView view(slurm.Reads(), kFullEvery);
  RequireRefresh(view, kStart);

  slurm.Put(2, "PENDING");
  slurm.fail_one = absl::UnavailableError("slurmrestd went away");
  absl::StatusOr<JobView::Refreshed> failed = view.Refresh(kStart + absl::Seconds(1));
  REQUIRE_FALSE(failed.ok());
  CHECK(absl::IsUnavailable(failed.status()));

  slurm.fail_one = absl::OkStatus();
  JobView::Refreshed retried = RequireRefresh(view, kStart + absl::Seconds(2));
  CHECK(slurm.single_reads == std::vector<JobId>{2});  // not forgotten after the failure
  CHECK(ById(retried.jobs) == slurm.jobs);

  slurm.fail = absl::UnavailableError("down");
  CHECK_FALSE(view.Refresh(kStart + absl::Seconds(3)).ok());
  slurm.fail = absl::OkStatus();
  CHECK(RequireRefresh(view, kStart + absl::Seconds(4)).jobs.size() == 2);
}

TEST_CASE("while hurried, the periodic full read waits up to four minutes") {
  FakeSlurm slurm;
  slurm.Put(1, "RUNNING");
  JobView view(slurm.Reads(), kFullEvery);
  CHECK(view.Refresh(kStart, nullptr, /*hurried=*/true)->kind == JobView::ReadKind::kFull);
  CHECK(view.Refresh(kStart + kFullEvery, nullptr, true)->kind == JobView::ReadKind::kChangedOnly);
  CHECK(view.Refresh(kStart + kFullEvery + absl::Minutes(4), nullptr, true)->kind ==
        JobView::ReadKind::kFull);
  CHECK(view.Refresh(kStart + 2 * kFullEvery + absl::Minutes(4), nullptr, false)->kind ==
        JobView::ReadKind::kFull);
}

TEST_CASE("Reset makes the next refresh a full read") {
  FakeSlurm slurm;
  slurm.Put(1, "RUNNING");
  JobView view(slurm.Reads(), kFullEvery);
  RequireRefresh(view, kStart);
  view.Reset();
  CHECK(RequireRefresh(view, kStart + absl::Seconds(1)).kind == JobView::ReadKind::kFull);
  CHECK(slurm.full_reads == 2);
}

}  // namespace
}  // namespace tidepool::syncer

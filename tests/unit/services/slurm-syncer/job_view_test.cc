#include "job_view.h"

#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "submitted_job.h"

namespace tidepool::syncer {
namespace {

using slurm::rest::Job;
using slurm::rest::JobId;
using slurm::rest::JobList;
using slurm::rest::JobStateEntry;

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);
const absl::Duration kFullEvery = absl::Minutes(1);

// Slurm as the view's three reads see it, counting them. Single reads may come from
// several threads at once.
struct FakeSlurm {
  absl::Mutex mutex;
  std::map<JobId, Job> jobs;
  // Array tasks listed under their record's id ("7_2", "7_3" → job 7).
  std::map<std::string, JobId> extra_entries;
  absl::Status fail;  // every read fails with it
  absl::Status fail_one;
  std::set<JobId> gone_when_read;  // listed, yet NotFound when read alone
  int full_reads = 0;
  std::vector<JobId> single_reads;
  // The next single read waits (up to 5 s) until another is in flight too.
  bool wait_for_company = false;
  int in_flight = 0;
  int most_in_flight = 0;

  struct InFlight {
    explicit InFlight(FakeSlurm& fake) : slurm(fake) {
      ++slurm.in_flight;
      slurm.most_in_flight = std::max(slurm.most_in_flight, slurm.in_flight);
      if (slurm.wait_for_company) {
        auto company = [this] { return slurm.in_flight > 1; };
        slurm.mutex.AwaitWithTimeout(absl::Condition(&company), absl::Seconds(5));
        slurm.wait_for_company = false;
      }
    }
    ~InFlight() { --slurm.in_flight; }
    InFlight(const InFlight&) = delete;
    InFlight& operator=(const InFlight&) = delete;
    FakeSlurm& slurm;
  };

  void Put(JobId id, std::string state, std::string nodes = "") {
    Job& job = jobs[id];
    job.id = id;
    job.name = absl::StrCat("job-", id);
    job.state = {std::move(state)};
    job.nodes = std::move(nodes);
  }

  void PutRange(JobId first, JobId last, const std::string& state, const std::string& nodes = "") {
    for (JobId id = first; id <= last; ++id) {
      Put(id, state, nodes);
    }
  }

  std::vector<JobId> SortedSingleReads() {
    absl::MutexLock lock(&mutex);
    std::vector<JobId> sorted = single_reads;
    std::sort(sorted.begin(), sorted.end());
    return sorted;
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
              absl::MutexLock lock(&mutex);
              InFlight reading(*this);
              if (!fail_one.ok()) {
                return fail_one;
              }
              single_reads.push_back(id);
              auto it = jobs.find(id);
              if (it == jobs.end() || gone_when_read.contains(id)) {
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

std::vector<Job> RequireRefresh(JobView& view, absl::Time now) {
  absl::StatusOr<std::vector<Job>> refreshed = view.Refresh(now);
  INFO(refreshed.status().ToString());
  REQUIRE(refreshed.ok());
  return *std::move(refreshed);
}

TEST_CASE("the first refresh reads every job; unchanged states read nothing more") {
  FakeSlurm slurm;
  slurm.Put(1, "RUNNING", "n-01");
  slurm.Put(2, "PENDING");
  JobView view(slurm.Reads(), kFullEvery);
  CHECK(ById(RequireRefresh(view, kStart)) == slurm.jobs);
  CHECK(slurm.full_reads == 1);

  CHECK(ById(RequireRefresh(view, kStart + absl::Seconds(1))) == slurm.jobs);
  CHECK(slurm.single_reads.empty());
  CHECK(slurm.full_reads == 1);
}

TEST_CASE("a new job and a job whose state changed are read again, alone") {
  FakeSlurm slurm;
  slurm.PutRange(1, 40, "RUNNING", "n-01");
  slurm.Put(41, "PENDING");
  JobView view(slurm.Reads(), kFullEvery);
  RequireRefresh(view, kStart);

  slurm.Put(41, "RUNNING", "n-07");  // started: now it has nodes
  slurm.Put(42, "PENDING");          // submitted
  slurm.jobs[3].comment = "changed, but not its state";
  const std::map<JobId, Job> seen = ById(RequireRefresh(view, kStart + absl::Seconds(1)));
  CHECK(slurm.full_reads == 1);
  CHECK(slurm.single_reads == std::vector<JobId>{41, 42});
  CHECK(seen.at(41).nodes == "n-07");
  CHECK(seen.at(42).state == std::vector<std::string>{"PENDING"});
  CHECK(seen.at(3).comment.empty());  // until the next full read

  const std::map<JobId, Job> later = ById(RequireRefresh(view, kStart + kFullEvery));
  CHECK(slurm.full_reads == 2);
  CHECK(later.at(3).comment == "changed, but not its state");
}

TEST_CASE("a job no longer listed leaves the view") {
  FakeSlurm slurm;
  slurm.Put(1, "COMPLETED");
  slurm.Put(2, "RUNNING");
  JobView view(slurm.Reads(), kFullEvery);
  RequireRefresh(view, kStart);
  slurm.jobs.erase(1);  // past MinJobAge
  const std::vector<Job> refreshed = RequireRefresh(view, kStart + absl::Seconds(1));
  CHECK(refreshed.size() == 1);
  CHECK(refreshed.front().id == 2);
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
  slurm.PutRange(1, 100, "PENDING");
  JobView view(slurm.Reads(), kFullEvery);
  RequireRefresh(view, kStart);
  slurm.PutRange(1, 65, "RUNNING");  // 65 > max(64, 100 / 8)
  const std::vector<Job> refreshed = RequireRefresh(view, kStart + absl::Seconds(1));
  CHECK(slurm.full_reads == 2);
  CHECK(slurm.single_reads.empty());
  CHECK(ById(refreshed) == slurm.jobs);
}

TEST_CASE("jobs that started are read before new pending ones, and go out every few reads") {
  FakeSlurm slurm;
  slurm.PutRange(1, 20, "PENDING");
  JobView view(slurm.Reads(), kFullEvery);
  RequireRefresh(view, kStart);
  slurm.PutRange(30, 39, "PENDING");       // submitted
  slurm.PutRange(11, 20, "RUNNING", "n");  // started
  std::vector<std::vector<Job>> published;
  absl::StatusOr<std::vector<Job>> refreshed = view.Refresh(
      kStart + absl::Seconds(1), {}, [&](std::vector<Job> jobs) { published.push_back(jobs); });
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
  CHECK(ById(*refreshed) == slurm.jobs);
}

TEST_CASE("a job purged before its read leaves the view; other failures keep the view and retry") {
  FakeSlurm slurm;
  slurm.Put(1, "RUNNING");
  JobView view(slurm.Reads(), kFullEvery);
  RequireRefresh(view, kStart);

  slurm.Put(2, "PENDING");
  slurm.fail_one = absl::UnavailableError("slurmrestd went away");
  absl::StatusOr<std::vector<Job>> failed = view.Refresh(kStart + absl::Seconds(1));
  REQUIRE_FALSE(failed.ok());
  CHECK(absl::IsUnavailable(failed.status()));

  slurm.fail_one = absl::OkStatus();
  const std::vector<Job> retried = RequireRefresh(view, kStart + absl::Seconds(2));
  CHECK(slurm.single_reads == std::vector<JobId>{2});  // not forgotten after the failure
  CHECK(ById(retried) == slurm.jobs);

  slurm.fail = absl::UnavailableError("down");
  CHECK_FALSE(view.Refresh(kStart + absl::Seconds(3)).ok());
  slurm.fail = absl::OkStatus();
  CHECK(RequireRefresh(view, kStart + absl::Seconds(4)).size() == 2);
}

// A record as slurm-syncer submitted it (PendingAsSubmitted), unlike what a read shows.
Job AsSubmitted(JobId id) {
  return PendingAsSubmitted({.name = absl::StrCat("job-", id), .comment = "pod hpc/a"}, id, "slurm",
                            kStart);
}

TEST_CASE("while jobs just submitted wait, the periodic full read waits up to four minutes") {
  FakeSlurm slurm;
  slurm.Put(1, "RUNNING");
  JobView view(slurm.Reads(), kFullEvery);
  const std::map<JobId, Job> waiting = {{2, AsSubmitted(2)}};
  REQUIRE(view.Refresh(kStart, waiting).ok());
  CHECK(slurm.full_reads == 1);
  REQUIRE(view.Refresh(kStart + kFullEvery, waiting).ok());
  CHECK(slurm.full_reads == 1);
  REQUIRE(view.Refresh(kStart + kFullEvery + absl::Minutes(4), waiting).ok());
  CHECK(slurm.full_reads == 2);
  REQUIRE(view.Refresh(kStart + 2 * kFullEvery + absl::Minutes(4)).ok());
  CHECK(slurm.full_reads == 3);
}

TEST_CASE("a job just submitted joins the view as submitted, not read, while it stays pending") {
  FakeSlurm slurm;
  slurm.Put(1, "RUNNING");
  JobView view(slurm.Reads(), kFullEvery);
  RequireRefresh(view, kStart);
  slurm.Put(2, "PENDING");  // submitted through this syncer
  slurm.Put(3, "PENDING");  // by someone else
  const std::map<JobId, Job> just_submitted = {{2, AsSubmitted(2)}};
  absl::StatusOr<std::vector<Job>> refreshed =
      view.Refresh(kStart + absl::Seconds(1), just_submitted);
  REQUIRE(refreshed.ok());
  CHECK(slurm.single_reads == std::vector<JobId>{3});
  const Job as_submitted = ById(*refreshed).at(2);
  CHECK(as_submitted == AsSubmitted(2));
  CHECK(as_submitted.Pending());
  CHECK(as_submitted.user == "slurm");
  CHECK(as_submitted.comment == "pod hpc/a");
  // Still pending, and no longer passed: unchanged, not read.
  REQUIRE(view.Refresh(kStart + absl::Seconds(2), just_submitted).ok());
  REQUIRE(view.Refresh(kStart + absl::Seconds(7)).ok());
  CHECK(slurm.single_reads == std::vector<JobId>{3});

  SECTION("it is read once it starts") {
    slurm.Put(2, "RUNNING", "n-04");
    refreshed = view.Refresh(kStart + absl::Seconds(8), just_submitted);
    REQUIRE(refreshed.ok());
    CHECK(ById(*refreshed).at(2).nodes == "n-04");
    CHECK(slurm.single_reads == std::vector<JobId>{3, 2});
  }
  SECTION("the next full read replaces it with what Slurm holds") {
    refreshed = view.Refresh(kStart + kFullEvery);
    REQUIRE(refreshed.ok());
    CHECK(slurm.full_reads == 2);
    CHECK(ById(*refreshed).at(2) == slurm.jobs.at(2));
  }
}

TEST_CASE("Reset makes the next refresh a full read") {
  FakeSlurm slurm;
  slurm.Put(1, "RUNNING");
  JobView view(slurm.Reads(), kFullEvery);
  RequireRefresh(view, kStart);
  view.Reset();
  RequireRefresh(view, kStart + absl::Seconds(1));
  CHECK(slurm.full_reads == 2);
}

TEST_CASE("a job listed yet gone when read is not read again until its listed state changes") {
  FakeSlurm slurm;
  slurm.Put(1, "RUNNING");
  JobView view(slurm.Reads(), kFullEvery);
  RequireRefresh(view, kStart);
  slurm.Put(2, "COMPLETED");
  slurm.gone_when_read = {2};  // purged between jobs/state and job/2
  CHECK(RequireRefresh(view, kStart + absl::Seconds(1)).size() == 1);
  RequireRefresh(view, kStart + absl::Seconds(2));
  CHECK(slurm.single_reads == std::vector<JobId>{2});

  slurm.Put(2, "RUNNING");  // the listed state changed
  slurm.gone_when_read.clear();
  CHECK(ById(RequireRefresh(view, kStart + absl::Seconds(3))).at(2).PrimaryState() == "RUNNING");
  CHECK(slurm.single_reads == std::vector<JobId>{2, 2});
}

TEST_CASE("single reads run several at once and all reach the view") {
  FakeSlurm slurm;
  slurm.PutRange(1, 10, "PENDING");
  JobView view(slurm.Reads(), kFullEvery, /*parallel_reads=*/4);
  RequireRefresh(view, kStart);
  slurm.PutRange(1, 10, "RUNNING", "n");
  slurm.PutRange(11, 40, "PENDING");
  slurm.wait_for_company = true;
  std::vector<std::vector<Job>> published;
  absl::StatusOr<std::vector<Job>> refreshed = view.Refresh(
      kStart + absl::Seconds(1), {}, [&](std::vector<Job> jobs) { published.push_back(jobs); });
  REQUIRE(refreshed.ok());
  CHECK(ById(*refreshed) == slurm.jobs);
  std::vector<JobId> all(40);
  std::iota(all.begin(), all.end(), 1);
  CHECK(slurm.SortedSingleReads() == all);
  CHECK(slurm.most_in_flight > 1);
  CHECK(slurm.most_in_flight <= 4);
  // The first batch of eight (started jobs first) went out before the rest were read.
  REQUIRE(published.size() == 4);
  const std::map<JobId, Job> first = ById(published[0]);
  for (JobId id = 1; id <= 8; ++id) {
    CHECK(first.at(id).nodes == "n");
  }
  CHECK(first.size() == 10);

  slurm.fail_one = absl::UnavailableError("slurmrestd went away");
  slurm.PutRange(41, 45, "PENDING");
  CHECK(absl::IsUnavailable(view.Refresh(kStart + absl::Seconds(2)).status()));
  slurm.fail_one = absl::OkStatus();
  CHECK(ById(RequireRefresh(view, kStart + absl::Seconds(3))) == slurm.jobs);
}

}  // namespace
}  // namespace tidepool::syncer

#include "job_facts.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::podsched {
namespace {

tidepool::v1::SlurmJob Job(const std::string& state, bool finished = false) {
  tidepool::v1::SlurmJob job;
  job.set_job_id(3);
  job.add_states(state);
  job.set_finished(finished);
  return job;
}

TEST_CASE("a job has ended once its base state is terminal or it finished") {
  CHECK(JobActive(Job("PENDING")));
  CHECK(JobActive(Job("RUNNING")));
  CHECK(JobRunning(Job("RUNNING")));
  for (const char* state : {"COMPLETED", "CANCELLED", "TIMEOUT", "PREEMPTED", "NODE_FAIL"}) {
    INFO(state);
    CHECK(JobEnded(Job(state)));
  }
  CHECK(JobEnded(Job("RUNNING", /*finished=*/true)));
}

TEST_CASE("a pod records its job and the cluster whose Slurm runs it") {
  api::PodView pod;
  CHECK_FALSE(PlacedByOtherCluster(pod, "hpc/research"));
  CHECK_FALSE(RecordsJob(pod, 3, "hpc/research"));
  pod.annotations["tidepool.dev/slurm-job-id"] = "3";
  CHECK_FALSE(PlacedByOtherCluster(pod, "hpc/research"));  // annotated before clusters were
  CHECK_FALSE(RecordsJob(pod, 3, "hpc/research"));         // ... so it is annotated again
  pod.annotations["tidepool.dev/slurm-cluster"] = "hpc/research";
  CHECK(RecordsJob(pod, 3, "hpc/research"));
  CHECK_FALSE(RecordsJob(pod, 4, "hpc/research"));
  CHECK(PlacedByOtherCluster(pod, "lab/other"));
  CHECK_FALSE(RecordsJob(pod, 3, "lab/other"));
}

TEST_CASE("a job's nodes are its hostlist expanded") {
  tidepool::v1::SlurmJob job = Job("RUNNING");
  job.set_nodes("n-[01-03]");
  CHECK(JobNodes(job) == std::vector<std::string>{"n-01", "n-02", "n-03"});
  job.set_nodes("");
  CHECK(JobNodes(job).empty());
}

TEST_CASE("Slurm refusing a submission is told apart from not reaching it") {
  CHECK(SlurmRefusedSubmission(absl::InvalidArgumentError("HTTP 422: Invalid gres")));
  CHECK(SlurmRefusedSubmission(absl::InternalError("HTTP 500: Invalid gres")));
  CHECK_FALSE(SlurmRefusedSubmission(absl::UnavailableError("slurmrestd down")));
  CHECK_FALSE(SlurmRefusedSubmission(absl::DeadlineExceededError("slow")));
  CHECK_FALSE(SlurmRefusedSubmission(absl::UnauthenticatedError("token")));
  CHECK_FALSE(SlurmRefusedSubmission(absl::OkStatus()));
}

}  // namespace
}  // namespace tidepool::podsched

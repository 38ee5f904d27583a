#include "job_spec.h"

#include <catch2/catch_test_macros.hpp>

#include "absl/strings/match.h"

namespace tidepool::podsched {
namespace {

api::PodView Pod(std::map<std::string, std::string> annotations = {}) {
  api::PodView pod;
  pod.ns = "ml";
  pod.name = "train-0";
  pod.uid = "uid-1";
  pod.annotations = std::move(annotations);
  return pod;
}

TEST_CASE("a pod's job holds its CPUs, memory and GPUs, named for the pod") {
  absl::StatusOr<tidepool::v1::JobSpec> job = JobSpecForPod(
      Pod({{"tidepool.dev/partition", "gpu"}, {"tidepool.dev/comment", "eval"}}),
      PodRequests{.cpu_milli = 2100, .memory_bytes = (3LL << 30) + 1, .gpus = 4}, "h100");
  REQUIRE(job.ok());
  CHECK(job->name() == "tidepool-pod-uid-1");
  CHECK(job->comment() == "pod ml/train-0: eval");
  CHECK(job->nodes() == "1");
  CHECK(job->tasks() == 1);
  CHECK(job->cpus_per_task() == 3);
  CHECK(job->memory_per_node_mb() == 3073);
  CHECK(job->tres_per_node() == "gres/gpu:h100:4");
  CHECK(job->partition() == "gpu");
  // An external job where Slurm takes them; the script where it does not.
  CHECK(job->external());
  CHECK(absl::StartsWith(job->script(), "#!/bin/sh\n"));
  CHECK(absl::StrContains(job->script(), "exec sleep"));
}

TEST_CASE("a pod asking for nothing still takes one CPU and leaves memory to Slurm") {
  absl::StatusOr<tidepool::v1::JobSpec> job = JobSpecForPod(Pod(), PodRequests{}, "");
  REQUIRE(job.ok());
  CHECK(job->cpus_per_task() == 1);
  CHECK(job->memory_per_node_mb() == 0);
  CHECK(job->tres_per_node().empty());
}

TEST_CASE("GPUs are untyped GRES when the cluster declares no single GPU type") {
  absl::StatusOr<tidepool::v1::JobSpec> job =
      JobSpecForPod(Pod(), PodRequests{.cpu_milli = 1000, .gpus = 2}, "");
  REQUIRE(job.ok());
  CHECK(job->tres_per_node() == "gres/gpu:2");
}

TEST_CASE("no job for a bad annotation or unreadable requests; the error says why") {
  absl::StatusOr<tidepool::v1::JobSpec> job =
      JobSpecForPod(Pod({{"tidepool.dev/time-limit", "soon"}}), PodRequests{}, "");
  REQUIRE_FALSE(job.ok());
  CHECK(absl::StrContains(job.status().message(), "tidepool.dev/time-limit"));
  job = JobSpecForPod(Pod(), absl::InvalidArgumentError("container a: cpu \"x\""), "");
  REQUIRE_FALSE(job.ok());
  CHECK(job.status().message() == "resource requests: container a: cpu \"x\"");
}

}  // namespace
}  // namespace tidepool::podsched

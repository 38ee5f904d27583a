#include "pod_writes.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::podsched {
namespace {

api::PodView Pod() {
  api::PodView pod;
  pod.ns = "ml";
  pod.name = "train-0";
  pod.uid = "uid-1";
  return pod;
}

TEST_CASE("the binding names the pod's uid and the target Node") {
  CHECK(BindingJson(Pod(), "node-b") ==
        R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"train-0","namespace":"ml",)"
        R"("uid":"uid-1"},"target":{"apiVersion":"v1","kind":"Node","name":"node-b"}})");
}

TEST_CASE("the job id and its cluster are a merge patch, for the pod of this uid only") {
  CHECK(JobIdPatchJson(Pod(), 42, "hpc/research") ==
        R"({"metadata":{"uid":"uid-1","annotations":{"tidepool.dev/slurm-job-id":"42",)"
        R"("tidepool.dev/slurm-cluster":"hpc/research"}}})");
}

TEST_CASE("PodScheduled=False is applied to the status with reason and message") {
  CHECK(UnschedulableStatusJson(Pod(), "InvalidPlacement", "bad \"x\"", absl::FromUnixSeconds(0)) ==
        R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"train-0","namespace":"ml"},)"
        R"("status":{"conditions":[{"type":"PodScheduled","status":"False",)"
        R"("reason":"InvalidPlacement","message":"bad \"x\"",)"
        R"("lastTransitionTime":"1970-01-01T00:00:00Z"}]}})");
}

}  // namespace
}  // namespace tidepool::podsched

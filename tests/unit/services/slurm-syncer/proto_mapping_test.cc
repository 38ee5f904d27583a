#include "proto_mapping.h"

#include <catch2/catch_test_macros.hpp>

#include "absl/strings/match.h"

namespace tidepool::syncer {
namespace {

using slurm::rest::NodeState;

TEST_CASE("a Slurm node maps with its base state first and the derived flags") {
  slurm::rest::Node node;
  node.name = "gpu-01";
  node.state = slurm::rest::NodeStateSet({NodeState::kDrain, NodeState::kMixed});
  node.reason = "k8s: pod not ready";
  node.reason_changed_at = absl::FromUnixSeconds(1'800'000'000);
  node.cpus = 64;
  node.features = {"h100", "ib"};
  v1::SlurmNode out;
  ToProto(node, &out);
  CHECK(out.name() == "gpu-01");
  REQUIRE(out.states_size() == 2);
  CHECK(out.states(0) == "MIXED");
  CHECK(out.states(1) == "DRAIN");
  CHECK(out.drain());
  CHECK_FALSE(out.drained());  // a job still runs on it
  CHECK_FALSE(out.idle());
  CHECK(out.reason_owned_by_k8s());
  CHECK(out.reason_changed_at().seconds() == 1'800'000'000);
  CHECK(out.features_size() == 2);

  node.state = slurm::rest::NodeStateSet({NodeState::kIdle, NodeState::kDrain});
  v1::SlurmNode idle;
  ToProto(node, &idle);
  CHECK(idle.drained());
  CHECK(idle.idle());
}

TEST_CASE("a finished job maps with its exit code") {
  slurm::rest::Job job;
  job.id = 42;
  job.state = {"COMPLETED"};
  job.exit_code.return_code = 3;
  v1::SlurmJob out;
  ToProto(job, &out);
  CHECK(out.job_id() == 42);
  CHECK(out.finished());
  CHECK(out.exit_code() == 3);
  CHECK_FALSE(out.has_start_time());
}

TEST_CASE("a job spec maps to a submission, zero meaning unset") {
  v1::JobSpec spec;
  spec.set_script("#!/bin/sh\ntrue\n");
  spec.set_tasks(4);
  spec.set_partition("gpu");
  spec.add_required_nodes("gpu-01");
  absl::StatusOr<slurm::rest::JobSubmission> job = FromProto(spec);
  REQUIRE(job.ok());
  CHECK(job->tasks == 4);
  CHECK_FALSE(job->time_limit_minutes.has_value());
  CHECK(job->partition == "gpu");
  CHECK(job->required_nodes == std::vector<std::string>{"gpu-01"});
  CHECK_FALSE(job->external);
  spec.set_external(true);
  CHECK(FromProto(spec)->external);
}

TEST_CASE("a job spec without a script or with negative numbers is refused naming the field") {
  v1::JobSpec no_script;
  CHECK(absl::StrContains(FromProto(no_script).status().message(), "job.script"));
  v1::JobSpec negative;
  negative.set_script("#!/bin/sh\n");
  negative.set_memory_per_node_mb(-5);
  absl::Status status = FromProto(negative).status();
  CHECK(absl::IsInvalidArgument(status));
  CHECK(absl::StrContains(status.message(), "job.memory_per_node_mb"));
}

TEST_CASE("a job spec's reservation and exclusive map to the submission") {
  v1::JobSpec spec;
  spec.set_script("#!/bin/sh\ntrue\n");
  spec.set_reservation("maint");
  spec.set_exclusive(v1::JobSpec::EXCLUSIVE_USER);
  absl::StatusOr<slurm::rest::JobSubmission> job = FromProto(spec);
  REQUIRE(job.ok());
  CHECK(job->reservation == "maint");
  CHECK(job->sharing == slurm::rest::JobSharing::kUser);
  spec.set_exclusive(v1::JobSpec::EXCLUSIVE_NONE);
  CHECK(FromProto(spec)->sharing == slurm::rest::JobSharing::kNone);
  spec.set_exclusive(v1::JobSpec::EXCLUSIVE_OK);
  CHECK(FromProto(spec)->sharing == slurm::rest::JobSharing::kOk);
  spec.clear_exclusive();
  CHECK(FromProto(spec)->sharing == slurm::rest::JobSharing::kUnset);
}

TEST_CASE("a job spec with an unknown exclusive value or a bad reservation is refused") {
  v1::JobSpec spec;
  spec.set_script("#!/bin/sh\ntrue\n");
  spec.set_exclusive(static_cast<v1::JobSpec::Exclusive>(9));
  absl::Status status = FromProto(spec).status();
  CHECK(absl::IsInvalidArgument(status));
  CHECK(absl::StrContains(status.message(), "job.exclusive: 9"));
  spec.clear_exclusive();
  for (const char* bad : {"a b", "a,b", "a\nb"}) {
    spec.set_reservation(bad);
    status = FromProto(spec).status();
    INFO(bad);
    CHECK(absl::IsInvalidArgument(status));
    CHECK(absl::StrContains(status.message(), "job.reservation"));
  }
  spec.set_reservation(std::string(257, 'r'));
  CHECK(absl::StrContains(FromProto(spec).status().message(), "job.reservation: longer"));
}

TEST_CASE("an UpdateNodeRequest maps to the drain policy's request") {
  v1::UpdateNodeRequest request;
  request.set_name("gpu-01");
  request.set_action(v1::UpdateNodeRequest::UNDRAIN);
  request.set_if_reason("k8s: x");
  request.set_force(true);
  const DrainRequest drain = FromProto(request);
  CHECK(drain.node == "gpu-01");
  CHECK(drain.action == DrainRequest::Action::kUndrain);
  CHECK(drain.if_reason == "k8s: x");
  CHECK(drain.force);
  request.set_action(static_cast<v1::UpdateNodeRequest::Action>(17));
  CHECK(FromProto(request).action == DrainRequest::Action::kUnspecified);
}

}  // namespace
}  // namespace tidepool::syncer

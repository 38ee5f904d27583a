#include "flags.h"

#include <catch2/catch_test_macros.hpp>
#include <string>

#include "absl/strings/match.h"

namespace tidepool::nodeset {
namespace {

ControllerOptions Defaults() {
  return {.client = {.kubeconfig = "/etc/tidepool/kubeconfig", .qps = 5, .burst = 10},
          .syncer_address = "127.0.0.1:50062",
          .lease_name = "nodeset-controller",
          .wait_requeue = absl::Seconds(5)};
}

// Why `options` are refused (InvalidArgument); empty when they are accepted.
std::string Refusal(const ControllerOptions& options) {
  const absl::Status status = ValidateControllerOptions(options).status();
  if (!status.ok()) CHECK(absl::IsInvalidArgument(status));
  return std::string(status.message());
}

TEST_CASE("valid options keep the shared Kubernetes client and leader-election flags") {
  absl::StatusOr<ControllerOptions> valid = ValidateControllerOptions(Defaults());
  REQUIRE(valid.ok());
  CHECK(valid->client == Defaults().client);
  CHECK(valid->leader_election == k8s::LeaderElectionFlags{});
  CHECK(valid->lease_name == "nodeset-controller");
}

TEST_CASE("bad values are refused naming the flag") {
  ControllerOptions options = Defaults();
  options.client.qps = 0;
  CHECK(absl::StrContains(Refusal(options), "--kube_api_qps"));
  options = Defaults();
  options.client.burst = 0;
  CHECK(absl::StrContains(Refusal(options), "--kube_api_burst"));
  options = Defaults();
  options.workers = 65;
  CHECK(absl::StrContains(Refusal(options), "--workers"));
  options = Defaults();
  options.wait_requeue = absl::ZeroDuration();
  CHECK(absl::StrContains(Refusal(options), "--wait_requeue"));
}

TEST_CASE("the Lease needs a namespace and a name only with leader election") {
  ControllerOptions options = Defaults();
  options.lease_name.clear();
  CHECK(absl::StrContains(Refusal(options), "--leader_election_id"));
  options.leader_election.lease_namespace.clear();
  CHECK(absl::StrContains(Refusal(options), "--leader_election_namespace"));
  options.leader_election.enabled = false;
  CHECK(Refusal(options).empty());
}

}  // namespace
}  // namespace tidepool::nodeset

#include "flags.h"

#include <catch2/catch_test_macros.hpp>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace tidepool::nodeset {
namespace {

ControllerOptions Defaults() {
  return {.client = {.kubeconfig = "/etc/tidepool/kubeconfig", .qps = 5, .burst = 10},
          .syncer_address = "127.0.0.1:50062",
          .lease_name = "nodeset-controller",
          .wait_requeue = absl::Seconds(5),
          .cluster_domain = "cluster.local"};
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

TEST_CASE("--slurm_cluster serves one cluster's NodeSets and watches its namespace") {
  absl::StatusOr<ControllerOptions> every = ValidateControllerOptions(Defaults());
  REQUIRE(every.ok());
  CHECK(every->served.Serves("lab/other"));
  CHECK(every->watch_namespace.empty());
  ControllerOptions options = Defaults();
  options.slurm_cluster = "hpc/research";
  absl::StatusOr<ControllerOptions> one = ValidateControllerOptions(options);
  REQUIRE(one.ok());
  CHECK(one->served.Serves("hpc/research"));
  CHECK_FALSE(one->served.Serves("hpc/other"));
  CHECK(one->watch_namespace == "hpc");
  options.watch_namespace = "lab";
  CHECK(absl::StrContains(Refusal(options), "--watch_namespace=\"lab\""));
  options.slurm_cluster = "hpc/Research";
  options.watch_namespace.clear();
  CHECK(absl::StrContains(Refusal(options), "--slurm_cluster"));
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
  options = Defaults();
  options.max_pod_creates_per_sync = 0;
  CHECK(absl::StrContains(Refusal(options), "--max_pod_creates_per_sync"));
  options.max_pod_creates_per_sync = 10001;
  CHECK(absl::StrContains(Refusal(options), "--max_pod_creates_per_sync"));
  options.max_pod_creates_per_sync = 10000;
  CHECK(Refusal(options).empty());
}

TEST_CASE("the Lease needs a namespace and a name only with leader election") {
  ControllerOptions options = Defaults();
  options.lease_name.clear();
  CHECK(absl::StrContains(Refusal(options), "--leader_election_id"));
  options.leader_election.lease_namespace.clear();
  CHECK(absl::StrContains(Refusal(options), "--leader_election_namespace"));
  options.leader_election.enabled = false;
  // slurm-syncer's Lease is looked for there even so.
  CHECK(absl::StrContains(Refusal(options), "--syncer_lease_name needs"));
  options.syncer_lease_name.clear();
  CHECK(Refusal(options).empty());
}

TEST_CASE("the cluster domain must be a DNS name") {
  ControllerOptions options = Defaults();
  for (const char* valid : {"cluster.local", "k8s.example-1.org", "local"}) {
    options.cluster_domain = valid;
    CHECK(Refusal(options).empty());
  }
  for (const char* invalid :
       {"", "Cluster.local", "cluster..local", ".cluster.local", "cluster.local.", "-a.local",
        "a-.local", "clus ter.local", "cluster_local", "a/b"}) {
    options.cluster_domain = invalid;
    INFO(invalid);
    CHECK(absl::StrContains(Refusal(options), "--cluster_domain"));
  }
  options.cluster_domain = std::string(64, 'a') + ".local";  // a label longer than 63
  CHECK(absl::StrContains(Refusal(options), "--cluster_domain"));
}

TEST_CASE("slurm-syncer's Lease name is a Lease name in a namespace, or empty for no gate hold") {
  ControllerOptions options = Defaults();
  CHECK(options.syncer_lease_name == "slurm-syncer");
  CHECK(Refusal(options).empty());
  options.syncer_lease_name = "";
  CHECK(Refusal(options).empty());
  options.syncer_lease_name = "Slurm Syncer";
  CHECK(absl::StrContains(Refusal(options), "--syncer_lease_name=\"Slurm Syncer\""));
}

TEST_CASE("slurm-syncer's Lease is looked for in its own namespace, by default this one's") {
  ControllerOptions options = Defaults();
  options.leader_election.lease_namespace = "tidepool-system";
  absl::StatusOr<ControllerOptions> valid = ValidateControllerOptions(options);
  REQUIRE(valid.ok());
  CHECK(valid->syncer_lease_namespace == "tidepool-system");
  options.syncer_lease_namespace = "slurm";
  valid = ValidateControllerOptions(options);
  REQUIRE(valid.ok());
  CHECK(valid->syncer_lease_namespace == "slurm");
  CHECK(valid->leader_election.lease_namespace == "tidepool-system");
  // Without leader election of its own, the syncer's namespace alone is enough.
  options.leader_election.lease_namespace.clear();
  options.leader_election.enabled = false;
  CHECK(Refusal(options).empty());
  for (const char* invalid : {"Slurm", "slurm.system", "-slurm", "slurm system"}) {
    options.syncer_lease_namespace = invalid;
    CHECK(absl::StrContains(Refusal(options),
                            absl::StrCat("--syncer_lease_namespace=\"", invalid, "\"")));
  }
  // No Lease, no namespace to check.
  options.syncer_lease_name.clear();
  options.syncer_lease_namespace.clear();
  CHECK(Refusal(options).empty());
}

TEST_CASE("a namespace for slurm-syncer's Lease with no Lease name is refused, naming both") {
  ControllerOptions options = Defaults();
  options.syncer_lease_name.clear();  // no gate hold
  options.syncer_lease_namespace = "slurm";
  const std::string refusal = Refusal(options);
  CHECK(absl::StrContains(refusal, "--syncer_lease_namespace=\"slurm\""));
  CHECK(absl::StrContains(refusal, "--syncer_lease_name is empty"));
  // Left as given: nothing is filled in or cleared on the way to the refusal.
  options.leader_election.lease_namespace = "tidepool-system";
  CHECK_FALSE(Refusal(options).empty());
  options.syncer_lease_namespace = "Not A Namespace";
  CHECK(absl::StrContains(Refusal(options), "--syncer_lease_name is empty"));
  options.syncer_lease_namespace.clear();
  absl::StatusOr<ControllerOptions> valid = ValidateControllerOptions(options);
  REQUIRE(valid.ok());
  CHECK(valid->syncer_lease_name.empty());
  CHECK(valid->syncer_lease_namespace.empty());  // no Lease: none filled in either
}

}  // namespace
}  // namespace tidepool::nodeset

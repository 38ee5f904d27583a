#include "flags.h"

#include <catch2/catch_test_macros.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "absl/strings/match.h"

namespace tidepool::syncer {
namespace {

RawSyncerFlags Defaults() {
  return {.rest_url = "http://127.0.0.1:6820",
          .jwt_user = "slurm",
          .token_file = "/run/secrets/slurm-token",
          .rest_timeout = absl::Seconds(10),
          .node_poll_interval = absl::Seconds(1),
          .full_resync_interval = absl::Minutes(5),
          .job_poll_interval = absl::Seconds(1)};
}

TEST_CASE("valid flags build the client and polling options") {
  absl::StatusOr<SyncerOptions> options = BuildSyncerOptions(Defaults());
  REQUIRE(options.ok());
  CHECK(options->client.base_url == "http://127.0.0.1:6820");
  CHECK(options->client.auth != nullptr);
  CHECK(options->node_polling.interval == absl::Seconds(1));
}

TEST_CASE("the two-way sync is configured unless turned off") {
  RawSyncerFlags raw = Defaults();
  raw.drain_node_conditions = {"GPUUnhealthy"};
  absl::StatusOr<SyncerOptions> options = BuildSyncerOptions(raw);
  REQUIRE(options.ok());
  REQUIRE(options->two_way.has_value());
  CHECK(options->two_way->drain_conditions == std::vector<std::string>{"GPUUnhealthy"});
  CHECK(options->two_way->lease_namespace == "tidepool-system");
  raw.sync_kubernetes = false;
  options = BuildSyncerOptions(raw);
  REQUIRE(options.ok());
  CHECK_FALSE(options->two_way.has_value());
}

TEST_CASE("the Kubernetes flags are checked only with --sync_kubernetes") {
  RawSyncerFlags raw = Defaults();
  raw.kube_client = {.kubeconfig = "/etc/tidepool/kubeconfig", .qps = 5, .burst = 10};
  absl::StatusOr<SyncerOptions> options = BuildSyncerOptions(raw);
  REQUIRE(options.ok());
  CHECK(options->kube_client == raw.kube_client);

  raw.kube_client.qps = 0;
  raw.leader_election.lease_namespace.clear();
  CHECK(absl::IsInvalidArgument(BuildSyncerOptions(raw).status()));
  raw.sync_kubernetes = false;
  CHECK(BuildSyncerOptions(raw).ok());
}

TEST_CASE("a UNIX socket alone needs no credentials") {
  RawSyncerFlags raw = Defaults();
  raw.token_file.clear();
  raw.rest_socket = "/run/slurmrestd.sock";
  absl::StatusOr<SyncerOptions> options = BuildSyncerOptions(raw);
  REQUIRE(options.ok());
  CHECK(absl::StartsWith(options->client.auth->Describe(), "none"));
}

TEST_CASE("a JWT key file is read at start-up") {
  const std::string key = std::filesystem::temp_directory_path() / "syncer_flags_test.key";
  std::ofstream(key) << "0123456789abcdef0123456789abcdef";
  RawSyncerFlags raw = Defaults();
  raw.token_file.clear();
  raw.jwt_key_file = key;
  std::filesystem::permissions(key, std::filesystem::perms(0644));
  const absl::Status readable = BuildSyncerOptions(raw).status();
  CHECK(absl::StrContains(readable.message(), "--slurm_jwt_key_file"));
  CHECK(absl::StrContains(readable.message(), "has mode 0644"));
  std::filesystem::permissions(key, std::filesystem::perms(0600));
  CHECK(BuildSyncerOptions(raw).ok());
  std::remove(key.c_str());
  absl::Status missing = BuildSyncerOptions(raw).status();
  CHECK(absl::IsInvalidArgument(missing));
  CHECK(absl::StrContains(missing.message(), "--slurm_jwt_key_file"));
}

RawSyncerFlags ClusterDefaults() {
  RawSyncerFlags raw = Defaults();
  raw.token_file.clear();
  raw.cluster = "hpc/research";
  return raw;
}

TEST_CASE("--slurm_cluster reaches the cluster's restapi Service by DNS by default") {
  absl::StatusOr<SyncerOptions> options = BuildSyncerOptions(ClusterDefaults());
  REQUIRE(options.ok());
  REQUIRE(options->cluster.has_value());
  CHECK(options->cluster->ref == api::ClusterRef{.namespace_name = "hpc", .name = "research"});
  CHECK(options->cluster->address_from == RestAddressFrom::kDns);
  CHECK(options->cluster->jwt_user == "slurm");
  CHECK(options->cluster->key_refresh_interval == absl::Minutes(2));
  CHECK(options->client.base_url == "https://research-restapi.hpc.svc:6820");
  CHECK(options->client.auth == nullptr);  // built by setup, with the Kubernetes client
}

TEST_CASE("--slurm_cluster syncs only its NodeSets' pods, in its namespace") {
  absl::StatusOr<SyncerOptions> options = BuildSyncerOptions(ClusterDefaults());
  REQUIRE(options.ok());
  REQUIRE(options->two_way.has_value());
  CHECK(options->two_way->pod_namespace == "hpc");
  CHECK(options->two_way->cluster_name == "research");

  RawSyncerFlags raw = ClusterDefaults();
  raw.pod_namespace = "hpc";
  CHECK(BuildSyncerOptions(raw).ok());
  raw.pod_namespace = "other";
  absl::Status refused = BuildSyncerOptions(raw).status();
  CHECK(absl::IsInvalidArgument(refused));
  CHECK(absl::StrContains(refused.message(), "--pod_namespace=other"));

  // Without a cluster: any NodeSet's pods (still only pods a NodeSet controls).
  options = BuildSyncerOptions(Defaults());
  REQUIRE(options.ok());
  CHECK(options->two_way->cluster_name.empty());
}

TEST_CASE("--slurm_rest_address_from chooses the address of the cluster's slurmrestd") {
  RawSyncerFlags raw = ClusterDefaults();
  raw.rest_url = "http://127.0.0.1:16820";
  raw.rest_address_from = "service";
  absl::StatusOr<SyncerOptions> options = BuildSyncerOptions(raw);
  REQUIRE(options.ok());
  CHECK(options->cluster->address_from == RestAddressFrom::kService);
  // The name the certificate is checked for; the ClusterIP is connected to.
  CHECK(options->client.base_url == "https://research-restapi.hpc.svc:6820");
  raw.rest_address_from = "dns";
  options = BuildSyncerOptions(raw);
  REQUIRE(options.ok());
  CHECK(options->client.base_url == "https://research-restapi.hpc.svc:6820");
  raw.rest_address_from = "url";
  options = BuildSyncerOptions(raw);
  REQUIRE(options.ok());
  CHECK(options->client.base_url == "http://127.0.0.1:16820");
}

TEST_CASE("--slurm_cluster needs the Kubernetes client even without the two-way sync") {
  RawSyncerFlags raw = ClusterDefaults();
  raw.sync_kubernetes = false;
  raw.kube_client = {.kubeconfig = "/etc/tidepool/kubeconfig", .qps = 5, .burst = 10};
  absl::StatusOr<SyncerOptions> options = BuildSyncerOptions(raw);
  REQUIRE(options.ok());
  CHECK_FALSE(options->two_way.has_value());
  CHECK(options->kube_client == raw.kube_client);
  raw.kube_client.qps = 0;
  CHECK(absl::IsInvalidArgument(BuildSyncerOptions(raw).status()));
}

TEST_CASE("--slurm_cluster excludes the other credentials, naming both flags") {
  for (auto [flag, mutate] :
       {std::pair<const char*, void (*)(RawSyncerFlags&)>{
            "--slurm_jwt_key_file", [](RawSyncerFlags& r) { r.jwt_key_file = "/k"; }},
        {"--slurm_token_file", [](RawSyncerFlags& r) { r.token_file = "/t"; }},
        {"--slurm_rest_socket", [](RawSyncerFlags& r) { r.rest_socket = "/s"; }}}) {
    RawSyncerFlags raw = ClusterDefaults();
    mutate(raw);
    absl::Status status = BuildSyncerOptions(raw).status();
    CAPTURE(flag, status.ToString());
    CHECK(absl::IsInvalidArgument(status));
    CHECK(absl::StrContains(status.message(), "--slurm_cluster"));
    CHECK(absl::StrContains(status.message(), flag));
  }
}

TEST_CASE("bad --slurm_cluster values are refused naming the flag") {
  struct Case {
    void (*mutate)(RawSyncerFlags&);
    const char* flag;
  };
  const Case cases[] = {
      {[](RawSyncerFlags& r) { r.cluster = "research"; }, "--slurm_cluster"},
      {[](RawSyncerFlags& r) { r.cluster = "hpc/research/x"; }, "--slurm_cluster"},
      {[](RawSyncerFlags& r) { r.cluster = "hpc/Research"; }, "--slurm_cluster"},
      {[](RawSyncerFlags& r) { r.rest_address_from = "ip"; }, "--slurm_rest_address_from"},
      {[](RawSyncerFlags& r) { r.jwt_key_refresh_interval = absl::Milliseconds(10); },
       "--slurm_jwt_key_refresh_interval"},
      {[](RawSyncerFlags& r) { r.jwt_user.clear(); }, "--slurm_jwt_user"},
  };
  for (const Case& c : cases) {
    RawSyncerFlags raw = ClusterDefaults();
    c.mutate(raw);
    absl::Status status = BuildSyncerOptions(raw).status();
    CAPTURE(c.flag, status.ToString());
    CHECK(absl::IsInvalidArgument(status));
    CHECK(absl::StrContains(status.message(), c.flag));
  }
}

TEST_CASE("--slurm_rest_address_from is checked even without --slurm_cluster") {
  RawSyncerFlags raw = Defaults();
  raw.rest_address_from = "DNS";
  CHECK(absl::IsInvalidArgument(BuildSyncerOptions(raw).status()));
}

TEST_CASE("bad flag values are refused naming the flag") {
  struct Case {
    void (*mutate)(RawSyncerFlags&);
    const char* flag;
  };
  const Case cases[] = {
      {[](RawSyncerFlags& r) { r.rest_url = "127.0.0.1:6820"; }, "--slurm_rest_url"},
      {[](RawSyncerFlags& r) { r.rest_version = "0.0.45"; }, "--slurm_rest_version"},
      {[](RawSyncerFlags& r) { r.node_poll_interval = absl::ZeroDuration(); },
       "--node_poll_interval"},
      {[](RawSyncerFlags& r) { r.full_resync_interval = absl::Seconds(1); },
       "--full_resync_interval"},
      {[](RawSyncerFlags& r) { r.job_poll_interval = absl::Hours(1); }, "--job_poll_interval"},
      {[](RawSyncerFlags& r) { r.slurm_metrics_interval = absl::Milliseconds(500); },
       "--slurm_metrics_interval"},
      {[](RawSyncerFlags& r) { r.slurm_metrics_interval = absl::Hours(2); },
       "--slurm_metrics_interval"},
      {[](RawSyncerFlags& r) { r.rest_timeout = absl::Milliseconds(1); }, "--slurm_rest_timeout"},
      {[](RawSyncerFlags& r) { r.jwt_key_file = "/k"; }, "--slurm_token_file"},
      {[](RawSyncerFlags& r) { r.token_file.clear(); }, "--slurm_jwt_key_file"},
      {[](RawSyncerFlags& r) { r.drain_node_conditions = {"Ready"}; }, "--drain_node_conditions"},
      {[](RawSyncerFlags& r) { r.kube_client.qps = -1; }, "--kube_api_qps"},
      {[](RawSyncerFlags& r) { r.kube_client.burst = 0; }, "--kube_api_burst"},
      {[](RawSyncerFlags& r) { r.leader_election.lease_namespace.clear(); },
       "--leader_election_namespace"},
  };
  for (const Case& c : cases) {
    RawSyncerFlags raw = Defaults();
    c.mutate(raw);
    absl::Status status = BuildSyncerOptions(raw).status();
    CAPTURE(c.flag, status.ToString());
    CHECK(absl::IsInvalidArgument(status));
    CHECK(absl::StrContains(status.message(), c.flag));
  }
}

}  // namespace
}  // namespace tidepool::syncer

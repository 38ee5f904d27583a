#include "flags.h"

#include <catch2/catch_test_macros.hpp>

#include "absl/strings/match.h"

namespace tidepool::cluster {
namespace {

RawControllerFlags Defaults() {
  return {.renderer_address = "127.0.0.1:50061",
          .syncer_address = "127.0.0.1:50062",
          .propagation_delay = absl::Seconds(5),
          .controller_hosts = {"research-controller-0"},
          .gpu_device_prefix = "/tmp/gpu",
          .control_plane = "pods",
          .cluster_domain = "cluster.local"};
}

TEST_CASE("flags build the loop's options and render environment") {
  absl::StatusOr<ControllerSettings> settings = BuildControllerSettings(Defaults());
  REQUIRE(settings.ok());
  CHECK(settings->client == k8s::ClientFlags{});
  CHECK(settings->loop.propagation_delay == absl::Seconds(5));
  CHECK(settings->loop.load_timeout == absl::Seconds(30));
  CHECK(settings->loop.leadership.enabled);
  CHECK(settings->loop.leadership.lease_namespace == "tidepool-system");
  CHECK(settings->loop.leadership.lease_name == "cluster-controller");
  CHECK(settings->loop.environment.controller_hosts(0) == "research-controller-0");
  CHECK(settings->loop.environment.gpu_device_prefix() == "/tmp/gpu");
  CHECK(settings->loop.control_plane == ControlPlane::kPods);
  RawControllerFlags external = Defaults();
  external.control_plane = "external";
  CHECK(BuildControllerSettings(external)->loop.control_plane == ControlPlane::kExternal);
}

TEST_CASE("the load check follows the control plane unless set") {
  RawControllerFlags raw = Defaults();
  CHECK(BuildControllerSettings(raw)->loop.verify_loaded);
  raw.verify_config_loaded = "false";
  CHECK_FALSE(BuildControllerSettings(raw)->loop.verify_loaded);
  raw.control_plane = "external";
  raw.verify_config_loaded = "auto";
  CHECK_FALSE(BuildControllerSettings(raw)->loop.verify_loaded);
  raw.verify_config_loaded = "true";
  CHECK(BuildControllerSettings(raw)->loop.verify_loaded);
}

TEST_CASE("--slurm_cluster serves one cluster and watches its namespace") {
  absl::StatusOr<ControllerSettings> every = BuildControllerSettings(Defaults());
  REQUIRE(every.ok());
  CHECK(every->loop.served.Serves("lab/other"));
  CHECK(every->loop.served.watch_namespace().empty());
  RawControllerFlags raw = Defaults();
  raw.slurm_cluster = "hpc/research";
  absl::StatusOr<ControllerSettings> one = BuildControllerSettings(raw);
  REQUIRE(one.ok());
  CHECK(one->loop.served.Serves("hpc/research"));
  CHECK_FALSE(one->loop.served.Serves("hpc/other"));
  CHECK(one->loop.served.watch_namespace() == "hpc");
}

TEST_CASE("bad flag values are refused naming the flag") {
  struct Case {
    void (*mutate)(RawControllerFlags&);
    const char* flag;
  };
  const Case cases[] = {
      {[](RawControllerFlags& r) { r.renderer_address = "localhost"; }, "--renderer_address"},
      {[](RawControllerFlags& r) { r.syncer_address = ":50062"; }, "--syncer_address"},
      {[](RawControllerFlags& r) { r.propagation_delay = absl::Hours(1); },
       "--config_propagation_delay"},
      {[](RawControllerFlags& r) { r.load_timeout = absl::Seconds(1); }, "--config_load_timeout"},
      {[](RawControllerFlags& r) { r.load_timeout = absl::Hours(2); }, "--config_load_timeout"},
      {[](RawControllerFlags& r) { r.client.qps = 0; }, "--kube_api_qps"},
      {[](RawControllerFlags& r) { r.client.burst = 0; }, "--kube_api_burst"},
      {[](RawControllerFlags& r) { r.leader_election.lease_namespace.clear(); },
       "--leader_election_namespace"},
      {[](RawControllerFlags& r) { r.controller_hosts = {"a b"}; }, "--controller_hosts"},
      {[](RawControllerFlags& r) { r.control_plane = "pod"; }, "--control_plane"},
      {[](RawControllerFlags& r) { r.verify_config_loaded = "yes"; }, "--verify_config_loaded"},
      {[](RawControllerFlags& r) { r.cluster_domain = ""; }, "--cluster_domain"},
      {[](RawControllerFlags& r) { r.cluster_domain = "cluster local"; }, "--cluster_domain"},
      {[](RawControllerFlags& r) { r.slurm_cluster = "research"; }, "--slurm_cluster"},
      {[](RawControllerFlags& r) {
         r.slurm_cluster = "hpc/research";
         r.watch_namespace = "lab";
       },
       "--watch_namespace"},
  };
  for (const Case& c : cases) {
    RawControllerFlags raw = Defaults();
    c.mutate(raw);
    absl::Status status = BuildControllerSettings(raw).status();
    CAPTURE(c.flag, status.ToString());
    CHECK(absl::IsInvalidArgument(status));
    CHECK(absl::StrContains(status.message(), c.flag));
  }
}

}  // namespace
}  // namespace tidepool::cluster

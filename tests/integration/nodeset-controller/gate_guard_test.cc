// nodeset-controller holds a slurmd pod's SlurmNodeInUse readiness gate True while
// slurm-syncer has no leader, against the real API server: the test stands in for
// slurm-syncer (its Lease, renewed or not, and the gate it writes).
#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "harness.h"
#include "k8s/conditions.h"
#include "k8s/object_json.h"
#include "support/kube_namespace.h"
#include "support/ports.h"
#include "tidepool/contract.h"

namespace tidepool::nodeset::testing {
namespace {

void RequireOk(const absl::Status& status) {
  INFO(status.ToString());
  REQUIRE(status.ok());
}

// slurm-syncer's Lease in `lease_namespace`, held by "syncer-0" for 3 s from now
// (server-side apply: the test renews it by applying again).
void RenewSyncerLease(TestNamespace& ns, const std::string& lease_namespace) {
  const std::string now = k8s::FormatMicroTime(absl::Now());
  const std::string lease = absl::StrCat(
      R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"slurm-syncer"},)",
      R"("spec":{"holderIdentity":"syncer-0","leaseDurationSeconds":3,"acquireTime":")", now,
      R"(","renewTime":")", now, R"("}})");
  RequireOk(ns.client()
                .Apply(k8s::Leases(), lease_namespace, "slurm-syncer", lease,
                       {.field_manager = "test-syncer", .force = true})
                .status());
}

// The gate as slurm-syncer writes it for a drained, idle Slurm node.
void WriteIdleGate(TestNamespace& ns, const std::string& pod) {
  const std::string body = absl::StrCat(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")", pod, R"("},)",
      R"("status":{"conditions":[{"type":"tidepool.dev/SlurmNodeInUse","status":"False",)",
      R"("reason":"DrainedIdle","message":"drained and idle","lastTransitionTime":")",
      k8s::FormatApiTime(absl::Now()), R"("}]}})");
  RequireOk(ns.client()
                .Apply(k8s::Pods(), ns.name(), pod, body,
                       {.field_manager = "slurm-syncer", .force = true}, "status")
                .status());
}

// "<status>/<reason>" of the pod's gate.
std::string Gate(TestNamespace& ns, const std::string& pod) {
  std::optional<std::string> json = ns.Pod(pod);
  if (!json.has_value()) return "pod gone";
  rapidjson::Document doc = k8s::ParseJsonObject(*json, "pod").value();
  const auto conditions = k8s::ReadConditions(doc);
  auto it = conditions.find(api::kSlurmNodeInUseCondition);
  return it == conditions.end() ? "none" : it->second.status + "/" + it->second.reason;
}

TEST_CASE("a drained idle pod's gate is held True once slurm-syncer stops renewing its Lease") {
  TestNamespace ns;
  ns.CreateNode("a");
  RenewSyncerLease(ns, ns.name());
  Controller controller(ns,
                        absl::StrCat("127.0.0.1:", tidepool::testing::FreeLoopbackPort().value()));
  ns.CreateNodeSet("workers", "w", std::nullopt);
  REQUIRE(WaitUntil([&] { return ns.PodNames() == std::vector<std::string>{"w-01"}; }));
  WriteIdleGate(ns, "w-01");

  // While the syncer renews, its gate stands (the grace is 10 s: 12 s of renewals).
  std::atomic<bool> renewing = true;
  std::jthread syncer([&](std::stop_token stop) {
    while (!stop.stop_requested()) {
      if (renewing) RenewSyncerLease(ns, ns.name());
      absl::SleepFor(absl::Seconds(1));
    }
  });
  absl::SleepFor(absl::Seconds(12));
  CHECK(Gate(ns, "w-01") == "False/DrainedIdle");

  // Killed: no renewal. 3 s of lease + 10 s of grace + a 2 s period later, held.
  renewing = false;
  const absl::Time stopped = absl::Now();
  const bool held =
      WaitUntil([&] { return Gate(ns, "w-01") == "True/SlurmSyncerAbsent"; }, absl::Seconds(30));
  INFO(controller.Output());
  REQUIRE(held);
  CHECK(absl::Now() - stopped >= absl::Seconds(8));  // the last renewal was up to 1 s before
  CHECK(absl::StrContains(controller.Output(), "slurm_syncer_absent"));
  CHECK(absl::StrContains(controller.Metrics(), "tidepool_nodeset_controller_gates_held_total 1"));

  // Back: the syncer writes what Slurm says again, and that stands.
  renewing = true;
  REQUIRE(WaitUntil([&] { return absl::StrContains(controller.Output(), "slurm_syncer_back"); }));
  WriteIdleGate(ns, "w-01");
  absl::SleepFor(absl::Seconds(5));
  CHECK(Gate(ns, "w-01") == "False/DrainedIdle");
}

TEST_CASE("slurm-syncer's Lease is read in the namespace slurm-syncer runs in") {
  TestNamespace ns;
  ns.CreateNode("a");
  const std::string syncer_namespace = ns.name() + "-syncer";
  RequireOk(tidepool::testing::EnsurePodNamespace(ns.client(), syncer_namespace));
  RenewSyncerLease(ns, syncer_namespace);
  Controller controller(ns,
                        absl::StrCat("127.0.0.1:", tidepool::testing::FreeLoopbackPort().value()),
                        {"--syncer_lease_namespace=" + syncer_namespace});
  ns.CreateNodeSet("workers", "w", std::nullopt);
  REQUIRE(WaitUntil([&] { return ns.PodNames() == std::vector<std::string>{"w-01"}; }));
  WriteIdleGate(ns, "w-01");

  // Renewed there and none in the controller's own namespace: the syncer is there, its gate
  // stands past the 10 s grace (looked for in the wrong namespace, it would be held).
  std::jthread syncer([&](std::stop_token stop) {
    while (!stop.stop_requested()) {
      RenewSyncerLease(ns, syncer_namespace);
      absl::SleepFor(absl::Seconds(1));
    }
  });
  absl::SleepFor(absl::Seconds(16));
  INFO(controller.Output());
  CHECK(Gate(ns, "w-01") == "False/DrainedIdle");
  CHECK_FALSE(absl::StrContains(controller.Output(), "slurm_syncer_absent"));
}

}  // namespace
}  // namespace tidepool::nodeset::testing

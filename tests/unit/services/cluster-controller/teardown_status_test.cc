#include "teardown_status.h"

#include <catch2/catch_test_macros.hpp>

#include "absl/strings/match.h"
#include "k8s/object_json.h"

namespace tidepool::cluster {
namespace {

constexpr char kCluster[] = R"({"apiVersion": "tidepool.dev/v1alpha1", "kind": "SlurmCluster",
  "metadata": {"name": "research", "namespace": "hpc", "generation": 4},
  "status": {"configHash": "sha256:x", "conditions": [
    {"type": "ControllerAvailable", "status": "True", "reason": "SlurmctldReady",
     "message": "1 of 1 slurmctld ready", "lastTransitionTime": "2026-01-01T00:00:00Z",
     "observedGeneration": 4},
    {"type": "Ready", "status": "True", "reason": "ConfigApplied", "message": "m",
     "lastTransitionTime": "2026-01-01T00:00:00Z", "observedGeneration": 4}]}})";

TEST_CASE("while tearing down, Ready is False with reason Terminating and names the wait") {
  const k8s::Condition ready =
      TerminatingCondition("slurmrestd to stop: pod research-restapi-x", 4);
  CHECK(ready.type == "Ready");
  CHECK(ready.status == "False");
  CHECK(ready.reason == "Terminating");
  CHECK(absl::StrContains(ready.message, "waiting for slurmrestd to stop: pod research-restapi-x"));

  const ClusterStatusView current = ReadStatus(kCluster);
  const std::string patch = TeardownStatusPatch(current, ready, absl::FromUnixSeconds(1800000000));
  const rapidjson::Document doc = k8s::ParseJsonObject(patch, "patch").value();
  const rapidjson::Value& conditions = doc["status"]["conditions"];
  REQUIRE(conditions.Size() == 2);
  // The other conditions are written back as they were (a merge patch replaces the list).
  CHECK(k8s::StringMember(conditions[0], "type") == "ControllerAvailable");
  CHECK(k8s::StringMember(conditions[0], "lastTransitionTime") == "2026-01-01T00:00:00Z");
  CHECK(k8s::StringMember(conditions[1], "type") == "Ready");
  CHECK(k8s::StringMember(conditions[1], "reason") == "Terminating");
  CHECK(k8s::StringMember(conditions[1], "lastTransitionTime") != "2026-01-01T00:00:00Z");
  CHECK(doc["status"].FindMember("configHash") == doc["status"].MemberEnd());
}

TEST_CASE("nothing to write when Ready already says the same") {
  const k8s::Condition ready =
      TerminatingCondition("slurmctld to stop: pod research-controller-0", 4);
  ClusterStatusView current = ReadStatus(kCluster);
  current.conditions["Ready"] = ready;
  CHECK(TeardownStatusPatch(current, ready, absl::Now()).empty());
}

}  // namespace
}  // namespace tidepool::cluster

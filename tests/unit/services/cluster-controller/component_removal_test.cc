#include "component_removal.h"

#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace tidepool::cluster {
namespace {

constexpr char kClusterUid[] = "cluster-uid-1";

// An object as an informer caches it, controlled by the owner `owner_uid` ("" for none).
std::string Cached(const std::string& name, const std::string& uid, const std::string& owner_uid,
                   bool deleting = false) {
  std::string owners;
  if (!owner_uid.empty()) {
    owners = absl::StrCat(
        R"(,"ownerReferences":[{"apiVersion":"tidepool.dev/v1alpha1","kind":"SlurmCluster",)",
        R"("name":"research","uid":")", owner_uid, R"(","controller":true}])");
  }
  return absl::StrCat(R"({"metadata":{"name":")", name, R"(","namespace":"hpc","uid":")", uid,
                      R"(")", owners,
                      deleting ? R"(,"deletionTimestamp":"2025-01-01T00:00:00Z")" : "", "}}");
}

// slurmdbd's objects as the accounting step applies them: Service first, then Deployment.
std::vector<CachedOwnedObject> Slurmdbd(const std::string& owner_uid) {
  return {{&k8s::Services(), "research-accounting",
           Cached("research-accounting", "svc-uid", owner_uid)},
          {&k8s::Deployments(), "research-accounting",
           Cached("research-accounting", "deploy-uid", owner_uid)}};
}

TEST_CASE("a component's objects this cluster controls are removed, workloads first") {
  const RemovalDecision decision = ObjectsToRemove(Slurmdbd(kClusterUid), kClusterUid);
  CHECK(decision.remove ==
        std::vector<ObjectRemoval>{
            {.type = &k8s::Deployments(), .name = "research-accounting", .uid = "deploy-uid"},
            {.type = &k8s::Services(), .name = "research-accounting", .uid = "svc-uid"}});
  CHECK(decision.not_ours.empty());
}

TEST_CASE("objects not in the cache cost no delete") {
  std::vector<CachedOwnedObject> owned = Slurmdbd(kClusterUid);
  for (CachedOwnedObject& object : owned) object.json.clear();
  const RemovalDecision decision = ObjectsToRemove(owned, kClusterUid);
  CHECK(decision.remove.empty());
  CHECK(decision.not_ours.empty());
}

TEST_CASE("an object of the same name that another owner or nobody controls is left alone") {
  SECTION("another SlurmCluster's (a former one of the same name)") {
    const RemovalDecision decision = ObjectsToRemove(Slurmdbd("other-uid"), kClusterUid);
    CHECK(decision.remove.empty());
    CHECK(decision.not_ours == std::vector<std::string>{"deployments/research-accounting",
                                                        "services/research-accounting"});
  }
  SECTION("a person's, with no controller") {
    const RemovalDecision decision = ObjectsToRemove(Slurmdbd(""), kClusterUid);
    CHECK(decision.remove.empty());
    CHECK(decision.not_ours.size() == 2);
  }
  SECTION("a cluster without a uid controls nothing") {
    const RemovalDecision decision = ObjectsToRemove(Slurmdbd(kClusterUid), "");
    CHECK(decision.remove.empty());
  }
}

TEST_CASE("an object already being deleted is not deleted again") {
  std::vector<CachedOwnedObject> owned = Slurmdbd(kClusterUid);
  owned[1].json = Cached("research-accounting", "deploy-uid", kClusterUid, /*deleting=*/true);
  const RemovalDecision decision = ObjectsToRemove(owned, kClusterUid);
  REQUIRE(decision.remove.size() == 1);
  CHECK(decision.remove[0].type == &k8s::Services());
}

TEST_CASE("Secrets and claims are never removed, even when listed and ours") {
  const std::vector<CachedOwnedObject> owned = {
      {&k8s::Secrets(), "research-accounting-credentials",
       Cached("research-accounting-credentials", "secret-uid", kClusterUid)},
      {&k8s::PersistentVolumeClaims(), "data-research-accounting-db-0",
       Cached("data-research-accounting-db-0", "claim-uid", kClusterUid)},
      {&k8s::StatefulSets(), "research-accounting-db",
       Cached("research-accounting-db", "sts-uid", kClusterUid)}};
  const RemovalDecision decision = ObjectsToRemove(owned, kClusterUid);
  CHECK(decision.remove ==
        std::vector<ObjectRemoval>{
            {.type = &k8s::StatefulSets(), .name = "research-accounting-db", .uid = "sts-uid"}});
}

TEST_CASE("objects are named as kubectl names them") {
  CHECK(ObjectLabel(k8s::Deployments(), "research-login") == "deployments/research-login");
}

}  // namespace
}  // namespace tidepool::cluster

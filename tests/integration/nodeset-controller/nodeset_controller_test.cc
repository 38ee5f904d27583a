// The nodeset-controller binary against the real API server, with no slurm-syncer to
// reach: pods for the NodeSet's Nodes (names, labels, pinning, owner), status and the
// scale subresource, a pod deleted by hand coming back as itself, and a scale-in that
// deletes nothing while Slurm cannot be seen.
#include <catch2/catch_test_macros.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "harness.h"
#include "k8s/object_json.h"
#include "k8s/ownership.h"
#include "support/ports.h"

namespace tidepool::nodeset::testing {
namespace {

std::string Field(const std::string& json, const char* object, const char* key) {
  rapidjson::Document doc = k8s::ParseJsonObject(json, "object").value();
  const rapidjson::Value* parent = k8s::FindMember(doc, object);
  return parent ? k8s::StringMember(*parent, key) : "";
}

std::string Label(const std::string& json, const char* key) {
  rapidjson::Document doc = k8s::ParseJsonObject(json, "object").value();
  return k8s::StringMember(doc["metadata"]["labels"], key);
}

// A loopback address where nothing listens: the syncer is down.
std::string DeadSyncer() {
  return absl::StrCat("127.0.0.1:", tidepool::testing::FreeLoopbackPort().value());
}

TEST_CASE("a NodeSet gets one pinned, labelled pod per Node; status and scale follow") {
  TestNamespace ns;
  const std::vector<std::string> nodes = {ns.CreateNode("a"), ns.CreateNode("b"),
                                          ns.CreateNode("c")};
  Controller controller(ns, DeadSyncer());
  ns.CreateNodeSet("workers", "w", std::nullopt,
                   R"("tolerations":[{"key":"gpu","operator":"Exists"}])");
  const std::vector<std::string> expected = {"w-01", "w-02", "w-03"};
  const bool created = WaitUntil([&] { return ns.PodNames() == expected; });
  INFO(controller.Output());
  REQUIRE(created);
  const std::string node_set = ns.NodeSet("workers");

  for (size_t i = 0; i < expected.size(); ++i) {
    const std::string pod = *ns.Pod(expected[i]);
    CAPTURE(pod);
    CHECK(Field(pod, "spec", "nodeName") == nodes[i]);
    CHECK(Field(pod, "spec", "hostname") == expected[i]);
    CHECK(Label(pod, "tidepool.dev/cluster") == "research");
    CHECK(Label(pod, "tidepool.dev/nodeset") == "workers");
    CHECK(Label(pod, "tidepool.dev/slurm-node") == expected[i]);
    CHECK(Label(pod, "tidepool.dev/component") == "slurmd");
    CHECK(Label(pod, "team") == "ml");
    CHECK(absl::StrContains(pod, R"("image":"example.invalid/slurmd:test")"));
    CHECK(absl::StrContains(pod, R"("key":"gpu")"));
    CHECK(absl::StrContains(pod, "tidepool.dev/template-hash"));
    // Wired to the cluster (accepted by the API server's pod validation).
    CHECK(Field(pod, "spec", "subdomain") == "research-compute");
    CHECK(absl::StrContains(pod, absl::StrCat(R"("searches":["research-compute.)", ns.name(),
                                              R"(.svc.cluster.local"])")));
    CHECK(absl::StrContains(pod, R"("configMap":{"name":"research-slurm-config")"));
    CHECK(absl::StrContains(pod, R"("secretName":"research-munge-key")"));
    CHECK(absl::StrContains(pod, R"("mountPath":"/etc/tidepool/munge")"));
    CHECK(k8s::IsControlledBy(pod, node_set));
    // The Node keeps its Slurm name for the pod's next incarnation.
    CHECK(WaitUntil([&] {
      absl::StatusOr<std::string> node = ns.client().Get(k8s::Nodes(), "", nodes[i]);
      return node.ok() && Label(*node, "tidepool.dev/slurm-node") == expected[i];
    }));
  }
  CHECK(WaitUntil([&] { return ns.StatusField("workers", "currentNumberScheduled") == 3; }));
  CHECK(ns.StatusField("workers", "desiredNumberScheduled") == 3);
  CHECK(ns.StatusField("workers", "numberFeasible") == 3);
  CHECK(ns.StatusField("workers", "numberReady") == 0);
  CHECK(ns.StatusField("workers", "numberUnavailable") == 3);
  CHECK(ns.ConditionReason("workers", "Available") == "False/PodsUnavailable");
  CHECK(ns.ConditionReason("workers", "SlurmUnreachable") == "True/SyncerUnavailable");
  CHECK(ns.EventNotes("SuccessfulCreate").size() == 3);

  SECTION("ready pods show in status") {
    ns.MarkAllReady();
    CHECK(WaitUntil([&] { return ns.StatusField("workers", "numberReady") == 3; }));
    CHECK(ns.StatusField("workers", "numberUnavailable") == 0);
    CHECK(ns.StatusField("workers", "updatedNumberScheduled") == 3);
    CHECK(ns.ConditionReason("workers", "Available") == "True/AllPodsReady");
  }

  SECTION("a pod deleted by hand comes back with its name on its Node") {
    const std::string old_uid = k8s::ParseObjectMeta(*ns.Pod("w-02"))->uid;
    REQUIRE(ns.client().Delete(k8s::Pods(), ns.name(), "w-02").ok());
    const bool replaced = WaitUntil([&] {
      std::optional<std::string> pod = ns.Pod("w-02");
      return pod.has_value() && k8s::ParseObjectMeta(*pod)->uid != old_uid;
    });
    INFO(controller.Output());
    REQUIRE(replaced);
    CHECK(Field(*ns.Pod("w-02"), "spec", "nodeName") == nodes[1]);
    CHECK(ns.PodNames() == expected);
  }

  SECTION("kubectl scale lowers desired, but nothing is deleted while Slurm is unseen") {
    ns.MarkAllReady();
    auto scaled = tidepool::testing::Kubectl(
        ns.env(), {"scale", "nodeset", "workers", "-n", ns.name(), "--replicas=2"});
    REQUIRE(scaled.ok());
    INFO(scaled->output);
    REQUIRE(scaled->exit_code == 0);
    CHECK(WaitUntil([&] { return ns.StatusField("workers", "desiredNumberScheduled") == 2; }));
    CHECK(WaitUntil(
        [&] { return ns.ConditionReason("workers", "Progressing") == "True/DeletionBlocked"; }));
    CHECK(WaitUntil([&] { return !ns.EventNotes("DeletionBlocked").empty(); }));
    absl::SleepFor(absl::Seconds(3));  // several requeues later
    CHECK(ns.PodNames() == expected);
    const std::vector<std::string> blocked = ns.EventNotes("DeletionBlocked");
    REQUIRE_FALSE(blocked.empty());
    CHECK(absl::StrContains(blocked[0], "not deleting pod w-03"));
    // The scale subresource reads spec.replicas and what status fills in.
    absl::StatusOr<k8s::Scale> scale = ns.client().GetScale(NodeSets(), ns.name(), "workers");
    INFO(scale.status().ToString());
    REQUIRE(scale.ok());
    CHECK(scale->spec_replicas == 2);
    CHECK(scale->status_replicas == 3);
    CHECK(scale->selector == "tidepool.dev/nodeset=workers");
  }
}

TEST_CASE("a Node belongs to one NodeSet, and the replicas cap picks among its own Nodes") {
  TestNamespace ns;
  ns.CreateNode("a");
  ns.CreateNode("b");
  Controller controller(ns, DeadSyncer());
  ns.CreateNodeSet("alpha", "alpha", 1);
  ns.CreateNodeSet("beta", "beta", std::nullopt);
  const bool settled = WaitUntil([&] {
    return ns.PodNames() == std::vector<std::string>{"alpha-01"} &&
           ns.StatusField("beta", "numberFeasible") == 0;
  });
  INFO(controller.Output());
  CHECK(settled);
  CHECK(ns.StatusField("alpha", "numberFeasible") == 2);
  CHECK(ns.StatusField("alpha", "desiredNumberScheduled") == 1);
  CHECK(ns.StatusField("beta", "desiredNumberScheduled") == 0);
  const std::string metrics = controller.Metrics();
  CHECK(absl::StrContains(metrics, "tidepool_nodeset_controller_pods_created_total 1"));
  CHECK(absl::StrContains(metrics, "tidepool_nodeset_controller_syncs_total{result=\"success\"}"));
  CHECK(absl::StrContains(metrics, "tidepool_nodeset_controller_leader 1"));
}

TEST_CASE("a NodeSet of a cluster another release serves is left alone") {
  TestNamespace ns;
  ns.CreateNode("a");
  ns.CreateNode("b");
  ns.CreateCluster("other");
  Controller controller(ns, DeadSyncer(),
                        {absl::StrCat("--slurm_cluster=", ns.name(), "/research")});
  ns.CreateNodeSet("theirs", "theirs", 1, "", "other");
  ns.CreateNodeSet("ours", "ours", 1);
  const bool settled = WaitUntil([&] {
    return ns.PodNames() == std::vector<std::string>{"ours-01"} &&
           ns.StatusField("ours", "desiredNumberScheduled") == 1;
  });
  INFO(controller.Output());
  REQUIRE(settled);
  absl::SleepFor(absl::Seconds(2));  // the Node events' resyncs of every NodeSet
  CHECK(ns.PodNames() == std::vector<std::string>{"ours-01"});
  const std::string theirs = ns.NodeSet("theirs");
  CAPTURE(theirs);
  CHECK_FALSE(absl::StrContains(theirs, R"("status")"));
  CHECK_FALSE(absl::StrContains(theirs, "finalizers"));
}

TEST_CASE("pods mount the munge key Secret the SlurmCluster names") {
  TestNamespace ns;
  ns.CreateNode("a");
  REQUIRE(ns.client()
              .MergePatch(SlurmClusters(), ns.name(), "research",
                          R"({"spec":{"auth":{"mungeKeySecret":"site-munge"}}})",
                          {.field_manager = "test"})
              .ok());
  Controller controller(ns, DeadSyncer());
  ns.CreateNodeSet("workers", "w", std::nullopt);
  const bool created = WaitUntil([&] { return ns.Pod("w-01").has_value(); });
  INFO(controller.Output());
  REQUIRE(created);
  const std::string pod = *ns.Pod("w-01");
  CAPTURE(pod);
  CHECK(absl::StrContains(pod, R"("secretName":"site-munge")"));
}

}  // namespace
}  // namespace tidepool::nodeset::testing

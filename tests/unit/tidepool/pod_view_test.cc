#include "tidepool/pod_view.h"

#include <catch2/catch_test_macros.hpp>
#include <map>
#include <string>

namespace tidepool::api {
namespace {

TEST_CASE("a slurmd pod's view has what the services read of it") {
  absl::StatusOr<PodView> pod = ParsePodView(R"({
    "metadata": {"name": "gpu-07", "namespace": "hpc", "uid": "u7",
                 "deletionTimestamp": "2026-12-02T08:00:00Z",
                 "labels": {"tidepool.dev/slurm-node": "h100-07", "tidepool.dev/nodeset": "h100",
                            "tidepool.dev/cluster": "research", "other": "x"},
                 "annotations": {"tidepool.dev/template-hash": "sha256:x",
                                 "tidepool.dev/slurm-state": "IDLE", "n": 1},
                 "ownerReferences": [{"uid": "not-controller"},
                                     {"uid": "ns-uid", "controller": true}]},
    "spec": {"nodeName": "node-a"},
    "status": {"phase": "Running",
               "conditions": [{"type": "PodScheduled", "status": "False",
                               "reason": "Unschedulable", "message": "no slot"},
                              {"type": "Ready", "status": "True",
                               "lastTransitionTime": "2026-12-05T06:00:00Z"},
                              {"type": "tidepool.dev/SlurmNodeReady", "status": "False",
                               "reason": "Drained"}]}})");
  REQUIRE(pod.ok());
  CHECK(pod->Key() == "hpc/gpu-07");
  CHECK(pod->uid == "u7");
  CHECK(pod->slurm_node == "h100-07");
  CHECK(pod->node_set == "h100");
  CHECK(pod->cluster == "research");
  CHECK(pod->controller_uid == "ns-uid");
  CHECK(pod->node_name == "node-a");
  CHECK(pod->phase == "Running");
  CHECK(pod->ready);
  CHECK(pod->deleting);
  CHECK(pod->template_hash == "sha256:x");
  CHECK(pod->annotations.at("tidepool.dev/slurm-state") == "IDLE");
  CHECK_FALSE(pod->annotations.contains("n"));  // not a string
  CHECK(pod->conditions.at("tidepool.dev/SlurmNodeReady").reason == "Drained");
  CHECK(pod->conditions.at("PodScheduled").message == "no slot");  // the pod-scheduler writes it
  CHECK(pod->conditions.at("Ready").status == "True");
  CHECK(pod->conditions.at("Ready").last_transition_time.empty());  // the kubelet's: status only
}

TEST_CASE("a pod's readiness is its containers', not its readiness gates'") {
  // Ready False only because the SlurmNodeInUse gate is: the pod itself is ready.
  absl::StatusOr<PodView> gated = ParsePodView(R"({"metadata": {"name": "gpu-01"},
    "status": {"conditions": [{"type": "ContainersReady", "status": "True"},
                              {"type": "Ready", "status": "False"},
                              {"type": "tidepool.dev/SlurmNodeInUse", "status": "False"}]}})");
  REQUIRE(gated.ok());
  CHECK(gated->ready);
  absl::StatusOr<PodView> crashed = ParsePodView(R"({"metadata": {"name": "gpu-01"},
    "status": {"conditions": [{"type": "ContainersReady", "status": "False"},
                              {"type": "Ready", "status": "True"}]}})");
  REQUIRE(crashed.ok());
  CHECK_FALSE(crashed->ready);
}

TEST_CASE("a bare pod's view has defaults, its name as the Slurm node") {
  absl::StatusOr<PodView> pod =
      ParsePodView(R"({"metadata": {"name": "gpu-01"}, "status": {"phase": "Pending"}})");
  REQUIRE(pod.ok());
  CHECK(pod->slurm_node == "gpu-01");
  CHECK(pod->node_name.empty());
  CHECK(pod->controller_uid.empty());
  CHECK(pod->phase == "Pending");
  CHECK_FALSE(pod->ready);
  CHECK_FALSE(pod->deleting);
  CHECK(pod->template_hash.empty());
}

TEST_CASE("a pod's view fails for what is not a pod object") {
  CHECK_FALSE(ParsePodView("[1]").ok());
  CHECK_FALSE(ParsePodView("{").ok());
  CHECK_FALSE(ParsePodView(R"({"spec": {}})").ok());  // no metadata
  // Mistyped fields read as empty rather than failing.
  absl::StatusOr<PodView> odd = ParsePodView(
      R"({"metadata": {"name": 3, "labels": [1], "ownerReferences": {}}, "spec": []})");
  REQUIRE(odd.ok());
  CHECK(odd->name.empty());
  CHECK(odd->node_set.empty());
}

TEST_CASE("a pod's view for an informer's cache: the view, or nothing") {
  std::any view = PodViewForCache(R"({"metadata": {"name": "gpu-01", "namespace": "hpc"}})");
  REQUIRE(std::any_cast<PodView>(&view) != nullptr);
  CHECK(std::any_cast<PodView>(&view)->Key() == "hpc/gpu-01");
  CHECK_FALSE(PodViewForCache("[1]").has_value());
}

TEST_CASE("a pod's view for a cache that keeps only the annotations and conditions read") {
  constexpr char kJson[] = R"({
    "metadata": {"name": "gpu-01", "namespace": "hpc",
                 "annotations": {"tidepool.dev/template-hash": "sha256:t",
                                 "tidepool.dev/slurm-attributes": "{}", "other": "x"}},
    "status": {"conditions": [{"type": "ContainersReady", "status": "True"},
                              {"type": "PodScheduled", "status": "True"},
                              {"type": "tidepool.dev/SlurmNodeInUse", "status": "False",
                               "reason": "Idle"}]}})";
  std::any view = PodViewForCacheKeeping(ViewKeeps::Only(
      {"tidepool.dev/slurm-attributes", "absent"}, {"tidepool.dev/SlurmNodeInUse"}))(kJson);
  const PodView* pod = std::any_cast<PodView>(&view);
  REQUIRE(pod != nullptr);
  CHECK(pod->annotations ==
        std::map<std::string, std::string>{{"tidepool.dev/slurm-attributes", "{}"}});
  REQUIRE(pod->conditions.size() == 1);
  CHECK(pod->conditions.at("tidepool.dev/SlurmNodeInUse").reason == "Idle");
  // Read before the rest went.
  CHECK(pod->template_hash == "sha256:t");
  CHECK(pod->ready);

  std::any bare = PodViewForCacheKeeping(ViewKeeps::Only({}, {}))(kJson);
  REQUIRE(std::any_cast<PodView>(&bare) != nullptr);
  CHECK(std::any_cast<PodView>(&bare)->annotations.empty());
  CHECK(std::any_cast<PodView>(&bare)->conditions.empty());
  CHECK(std::any_cast<PodView>(&bare)->ready);
  CHECK_FALSE(PodViewForCacheKeeping(ViewKeeps::Only({}, {}))("[1]").has_value());
}

TEST_CASE("a bare pod view without ContainersReady reads its readiness from Ready") {
  std::any view = PodViewForCacheKeeping(ViewKeeps::Only({}, {}))(
      R"({"metadata": {"name": "gpu-02", "namespace": "hpc"},
          "status": {"conditions": [{"type": "Ready", "status": "True"}]}})");
  REQUIRE(std::any_cast<PodView>(&view) != nullptr);
  CHECK(std::any_cast<PodView>(&view)->ready);
  std::any not_ready = PodViewForCacheKeeping(ViewKeeps::Only({}, {}))(
      R"({"metadata": {"name": "gpu-02", "namespace": "hpc"},
          "status": {"conditions": [{"type": "ContainersReady", "status": "False"},
                                    {"type": "Ready", "status": "True"}]}})");
  REQUIRE(std::any_cast<PodView>(&not_ready) != nullptr);
  CHECK_FALSE(std::any_cast<PodView>(&not_ready)->ready);
}

TEST_CASE("a cached pod's view in place: the informer's without a copy, else parsed") {
  constexpr char kJson[] = R"({"metadata": {"name": "gpu-01", "namespace": "hpc"}})";
  k8s::CachedObject with_view{.json = kJson, .view = PodViewForCache(kJson)};
  std::optional<PodView> parsed;
  CHECK(PodViewIn(with_view, parsed) == with_view.ViewAs<PodView>());
  CHECK_FALSE(parsed.has_value());

  const k8s::CachedObject without_view{.json = kJson};
  const PodView* read = PodViewIn(without_view, parsed);
  REQUIRE(read != nullptr);
  CHECK(read == &*parsed);
  CHECK(read->Key() == "hpc/gpu-01");

  std::optional<PodView> unread;
  CHECK(PodViewIn(k8s::CachedObject{.json = "[1]"}, unread) == nullptr);
  CHECK_FALSE(unread.has_value());
}

}  // namespace
}  // namespace tidepool::api

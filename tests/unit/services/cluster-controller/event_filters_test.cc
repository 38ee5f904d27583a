#include "event_filters.h"

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <functional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "render_inputs.h"
#include "tidepool/contract.h"
#include "tidepool/pod_view.h"

namespace tidepool::cluster {
namespace {

k8s::CachedObject Object(std::string json) { return k8s::CachedObject{.json = std::move(json)}; }

// A Node as cluster-controller's informer stores it: its view (NodeViewForRender), no JSON.
k8s::CachedObject Stored(const std::string& json) {
  return k8s::CachedObject{.view = NodeViewForRender(json)};
}

// Each Node test runs on both: the informer's stored views, and JSON without a view.
std::function<k8s::CachedObject(std::string)> NodeObjects(bool stored) {
  return [stored](std::string json) { return stored ? Stored(json) : Object(std::move(json)); };
}

// A Node as the node agent writes it (many labels: their order must not matter).
std::string NodeJson(absl::string_view heartbeat, absl::string_view extra_condition = "",
                     absl::string_view zone = "a", bool unschedulable = false) {
  return absl::StrCat(
      R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"sim-0001","uid":"u1",)",
      R"("resourceVersion":")", heartbeat, R"(","labels":{"kubernetes.io/hostname":"sim-0001",)",
      R"("kubernetes.io/os":"linux","kubernetes.io/arch":"amd64","agent.tidepool.dev/simulated":"true",)",
      R"("nvidia.com/gpu.count":"8","nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3",)",
      R"("topology.kubernetes.io/zone":")", zone, R"("},"annotations":{"a":")", heartbeat,
      R"("}},"spec":{"unschedulable":)", unschedulable ? "true" : "false",
      R"(},"status":{"allocatable":{"cpu":"4","memory":"16Gi","pods":"110",)",
      R"("ephemeral-storage":"100Gi","nvidia.com/gpu":"8"},"conditions":[{"type":"Ready",)",
      R"("status":"True","lastHeartbeatTime":")", heartbeat, R"("})", extra_condition, "]}}");
}

TEST_CASE("a Node's heartbeat or slurm-syncer's condition does not feed the render") {
  const auto node = NodeObjects(GENERATE(true, false));
  const k8s::CachedObject before = node(NodeJson("2026-12-05T00:00:00Z"));
  CHECK_FALSE(NodeRenderInputChanged(before, node(NodeJson("2026-12-05T00:01:40Z"))));
  CHECK_FALSE(NodeRenderInputChanged(
      before,
      node(NodeJson("2026-12-05T00:01:40Z", R"(,{"type":"SlurmNotResponding","status":"True"})"))));
}

TEST_CASE("a Node's labels or allocatable feed the render; its cordon and taints do not") {
  const auto node = NodeObjects(GENERATE(true, false));
  const k8s::CachedObject before = node(NodeJson("2026-12-05T00:00:00Z"));
  CHECK(NodeRenderInputChanged(before, node(NodeJson("2026-12-05T00:00:00Z", "", "b"))));
  const std::string fewer_gpus = absl::StrReplaceAll(
      NodeJson("2026-12-05T00:00:00Z"), {{R"("nvidia.com/gpu":"8"})", R"("nvidia.com/gpu":"4"})"}});
  CHECK(NodeRenderInputChanged(before, node(fewer_gpus)));
  // kubectl cordon, and the taint the node lifecycle controller adds for it.
  const std::string cordoned = NodeJson("2026-12-05T00:01:40Z", "", "a", true);
  CHECK_FALSE(NodeRenderInputChanged(before, node(cordoned)));
  const std::string tainted = absl::StrReplaceAll(
      cordoned, {{R"("unschedulable":true)",
                  R"("unschedulable":true,"taints":[{"key":"node.kubernetes.io/unschedulable",)"
                  R"("effect":"NoSchedule"}])"}});
  CHECK_FALSE(NodeRenderInputChanged(before, node(tainted)));
}

std::string PodJson(absl::string_view slurm_state, absl::string_view in_use,
                    absl::string_view phase = "Running", absl::string_view node = "sim-0001") {
  return absl::StrCat(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"gpu-1","namespace":"hpc","uid":"p1",)",
      R"("labels":{"tidepool.dev/slurm-node":"gpu-1","tidepool.dev/nodeset":"h100"},)",
      R"("annotations":{"tidepool.dev/slurm-state":")", slurm_state,
      R"(","tidepool.dev/slurm-reason":""}},"spec":{"nodeName":")", node,
      R"("},"status":{"phase":")", phase,
      R"(","conditions":[{"type":"Ready","status":"True"},{"type":"ContainersReady","status":"True"},)",
      R"({"type":"tidepool.dev/SlurmNodeInUse","status":")", in_use, R"("}]}})");
}

TEST_CASE("slurm-syncer's writes to a pod do not sync the cluster; the pod's own changes do") {
  const k8s::CachedObject before = Object(PodJson("IDLE", "False"));
  CHECK_FALSE(PodChangeMatters(before, Object(PodJson("IDLE+DRAIN", "True"))));
  CHECK(PodChangeMatters(before, Object(PodJson("IDLE", "False", "Failed"))));
  CHECK(PodChangeMatters(before, Object(PodJson("IDLE", "False", "Running", "sim-0002"))));
  const std::string not_ready = absl::StrReplaceAll(
      PodJson("IDLE", "False"), {{R"({"type":"ContainersReady","status":"True"})",
                                  R"({"type":"ContainersReady","status":"False"})"}});
  CHECK(PodChangeMatters(before, Object(not_ready)));
  // Ready (which waits on the SlurmNodeInUse gate slurm-syncer writes) alone: no sync.
  const std::string gate_closed = absl::StrReplaceAll(
      PodJson("IDLE", "False"),
      {{R"({"type":"Ready","status":"True"})", R"({"type":"Ready","status":"False"})"}});
  CHECK_FALSE(PodChangeMatters(before, Object(gate_closed)));
}

TEST_CASE("as the controller caches pods, a condition's change alone does not sync the cluster") {
  const auto cached = [](const std::string& json) {
    return k8s::CachedObject{.view = api::PodViewForCacheKeeping(api::ViewKeeps::Only(
                                 {api::kSlurmAttributesAnnotation}, {}))(json)};
  };
  const std::string pod = PodJson("IDLE", "False");
  const k8s::CachedObject before = cached(pod);
  REQUIRE(before.ViewAs<api::PodView>() != nullptr);
  // The gate (and so Ready) flipped by slurm-syncer, or any other condition: the same inputs.
  CHECK_FALSE(PodChangeMatters(
      before, cached(absl::StrReplaceAll(pod, {{R"({"type":"Ready","status":"True"})",
                                                R"({"type":"Ready","status":"False"})"}}))));
  CHECK(PodChangeMatters(before, cached(absl::StrReplaceAll(
                                     pod, {{R"({"type":"ContainersReady","status":"True"})",
                                            R"({"type":"ContainersReady","status":"False"})"}}))));
  CHECK(PodChangeMatters(before, cached(PodJson("IDLE", "False", "Running", "sim-0002"))));
  const std::string attributes = absl::StrReplaceAll(
      pod, {{R"("annotations":{)", R"("annotations":{"tidepool.dev/slurm-attributes":"{}",)"}});
  CHECK(PodChangeMatters(before, cached(attributes)));
  // An annotation the sync does not read is not kept.
  const std::string other = absl::StrReplaceAll(
      pod, {{R"("annotations":{)", R"("annotations":{"example.com/note":"x",)"}});
  CHECK_FALSE(PodChangeMatters(before, cached(other)));
}

}  // namespace
}  // namespace tidepool::cluster

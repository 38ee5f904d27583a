#include "render_inputs.h"

#include <any>
#include <catch2/catch_test_macros.hpp>
#include <map>
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "google/protobuf/util/message_differencer.h"

namespace tidepool::cluster {
namespace {

constexpr char kCluster[] = R"({"apiVersion": "tidepool.dev/v1alpha1", "kind": "SlurmCluster",
  "metadata": {"name": "research", "namespace": "hpc", "uid": "u1"},
  "spec": {"clusterName": "research"}})";

// A NodeSet's uid is "uid-<name>"; a pod is controlled by the NodeSet it is labelled with
// unless `controller` names another uid.
std::string NodeSet(const std::string& name, const std::string& cluster,
                    const std::string& ns = "hpc") {
  return R"({"apiVersion": "tidepool.dev/v1alpha1", "kind": "NodeSet", "metadata": {"name": ")" +
         name + R"(", "namespace": ")" + ns + R"(", "uid": "uid-)" + name +
         R"("}, "spec": {"clusterRef": {"name": ")" + cluster + R"("}}})";
}

std::string Pod(const std::string& name, const std::string& node_set, const std::string& node,
                const std::string& controller = "") {
  const std::string uid = controller.empty() ? "uid-" + node_set : controller;
  return R"({"metadata": {"name": ")" + name + R"(", "namespace": "hpc", "labels": {
    "tidepool.dev/cluster": "research", "tidepool.dev/nodeset": ")" +
         node_set + R"(", "tidepool.dev/slurm-node": ")" + name + R"("},
    "ownerReferences": [{"apiVersion": "tidepool.dev/v1alpha1", "kind": "NodeSet",
      "name": ")" +
         node_set + R"(", "uid": ")" + uid + R"(", "controller": true}]},
    "spec": {"nodeName": ")" +
         node + R"("}})";
}

std::string KubeNode(const std::string& name) {
  return R"({"metadata": {"name": ")" + name +
         R"(", "labels": {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
        "ib.coreweave.cloud/fabric": "f1", "topology.kubernetes.io/zone": "z1",
        "feature.node.kubernetes.io/cpu-cpuid.AVX512F": "true"},
      "annotations": {"a": "b"}, "resourceVersion": "7"},
    "spec": {"unschedulable": true, "taints": [{"key": "node.kubernetes.io/unschedulable",
      "effect": "NoSchedule"}]},
    "status": {"allocatable": {"cpu": "64", "memory": "512Gi", "nvidia.com/gpu": "8"}}})";
}

ClusterObjects Objects() {
  static const std::map<std::string, std::string> nodes = {{"k-1", KubeNode("k-1")},
                                                           {"k-2", KubeNode("k-2")}};
  return ClusterObjects{.cluster_json = kCluster,
                        .node_set_jsons = {NodeSet("h200", "research"), NodeSet("h100", "research"),
                                           NodeSet("other", "elsewhere")},
                        .pod_jsons = {Pod("h100-02", "h100", "k-2"), Pod("h100-01", "h100", "k-1"),
                                      Pod("h100-03", "h100", ""), Pod("x-01", "other", "k-1")},
                        .node_json = [](const std::string& name) {
                          auto it = nodes.find(name);
                          return it != nodes.end() ? it->second : std::string();
                        }};
}

TEST_CASE("the request holds the cluster's NodeSets and bound pods in name order") {
  v1::RenderEnvironment environment;
  environment.set_gpu_device_prefix("/tmp/gpu");
  absl::StatusOr<RenderInputs> inputs = BuildRenderInputs(Objects(), environment);
  REQUIRE(inputs.ok());
  const v1::RenderRequest& request = *inputs->request;
  CHECK(request.cluster().spec().cluster_name() == "research");
  REQUIRE(request.node_sets_size() == 2);
  CHECK(request.node_sets(0).metadata().name() == "h100");
  CHECK(request.node_sets(1).metadata().name() == "h200");
  REQUIRE(request.members_size() == 2);
  CHECK(request.members(0).slurm_node_name() == "h100-01");
  CHECK(request.members(0).node().metadata().name() == "k-1");
  CHECK(request.members(0).node().allocatable().at("nvidia.com/gpu") == "8");
  CHECK(request.members(0).node().metadata().labels().at("nvidia.com/gpu.product") ==
        "NVIDIA-H100-80GB-HBM3");
  // What the render does not read stays out (a cordon does not sync the cluster), labels
  // included: the topology's default levels are read, not feature discovery's labels, nor a
  // label no NodeSet names as a feature label.
  CHECK(request.members(0).node().metadata().labels().size() == 2);
  CHECK(request.members(0).node().metadata().labels().at("ib.coreweave.cloud/fabric") == "f1");
  CHECK(request.members(0).node().taints().empty());
  CHECK_FALSE(request.members(0).node().unschedulable());
  CHECK(request.members(0).node().metadata().annotations().empty());
  CHECK(request.members(0).node().metadata().resource_version().empty());
  CHECK(request.members(1).slurm_node_name() == "h100-02");
  CHECK(request.environment().gpu_device_prefix() == "/tmp/gpu");
}

TEST_CASE("a NodeSet's feature labels are in the request, of every member's Node") {
  ClusterObjects objects = Objects();
  objects.node_set_jsons[1] = absl::StrReplaceAll(
      objects.node_set_jsons[1],
      {{R"("spec": {)",
        R"("spec": {"slurm": {"featureLabels": {"topology.kubernetes.io/zone": "zone-"}}, )"}});
  absl::StatusOr<RenderInputs> inputs = BuildRenderInputs(objects, {});
  REQUIRE(inputs.ok());
  REQUIRE(inputs->request->members_size() == 2);
  for (const v1::MemberNode& member : inputs->request->members()) {
    CHECK(member.node().metadata().labels().at("topology.kubernetes.io/zone") == "z1");
    CHECK_FALSE(
        member.node().metadata().labels().contains("feature.node.kubernetes.io/cpu-cpuid.AVX512F"));
  }
}

TEST_CASE("pods that cannot be members are reported, not silently dropped") {
  absl::StatusOr<RenderInputs> inputs = BuildRenderInputs(Objects(), {});
  REQUIRE(inputs.ok());
  INFO(absl::StrJoin(inputs->skipped, "\n"));
  REQUIRE(inputs->skipped.size() == 2);
  CHECK(absl::StrContains(inputs->skipped[0], "hpc/h100-03: not bound to a Node yet"));
  CHECK(absl::StrContains(inputs->skipped[1], "hpc/x-01: NodeSet \"other\""));
}

// Labels are anyone's to set: a look-alike must not become a Slurm node.
TEST_CASE("a pod its NodeSet does not control is no member, whatever its labels") {
  ClusterObjects objects = Objects();
  objects.pod_jsons.push_back(Pod("h100-07", "h100", "k-1", "uid-someone-else"));
  const std::string unowned = R"({"metadata": {"name": "h100-08", "namespace": "hpc", "labels": {
    "tidepool.dev/cluster": "research", "tidepool.dev/nodeset": "h100",
    "tidepool.dev/slurm-node": "h100-08"}}, "spec": {"nodeName": "k-2"}})";
  objects.pod_jsons.push_back(unowned);
  absl::StatusOr<RenderInputs> inputs = BuildRenderInputs(objects, {});
  REQUIRE(inputs.ok());
  INFO(absl::StrJoin(inputs->skipped, "\n"));
  REQUIRE(inputs->request->members_size() == 2);  // h100-01 and h100-02 only
  REQUIRE(inputs->skipped.size() == 4);
  CHECK(absl::StrContains(inputs->skipped[1], "hpc/h100-07: not controlled by NodeSet h100"));
  CHECK(absl::StrContains(inputs->skipped[2], "hpc/h100-08: not controlled by NodeSet h100"));
}

// Rendered without them, live nodes would leave slurm.conf and Slurm would end their jobs.
TEST_CASE("inputs that cannot be read stop the render, naming each") {
  SECTION("a bound pod whose Node the cache lacks") {
    ClusterObjects objects = Objects();
    objects.pod_jsons.push_back(Pod("h100-04", "h100", "k-gone"));
    absl::StatusOr<RenderInputs> inputs = BuildRenderInputs(objects, {});
    INFO(inputs.status().ToString());
    CHECK(absl::IsFailedPrecondition(inputs.status()));
    CHECK(absl::StrContains(inputs.status().message(), "hpc/h100-04: Node k-gone"));
    CHECK(absl::StrContains(inputs.status().message(), "drop live nodes"));
  }
  SECTION("a NodeSet of the cluster, or of no readable cluster, that does not parse") {
    for (const std::string& bad :
         {std::string(R"({"apiVersion": "tidepool.dev/v1alpha1", "kind": "NodeSet",
             "metadata": {"name": "h300", "namespace": "hpc"},
             "spec": {"clusterRef": {"name": "research"}, "replicas": "many"}})"),
          std::string(R"({"metadata": {"name": "h400"}, "spec": 7})")}) {
      ClusterObjects objects = Objects();
      objects.node_set_jsons.push_back(bad);
      absl::StatusOr<RenderInputs> inputs = BuildRenderInputs(objects, {});
      INFO(inputs.status().ToString());
      CHECK(absl::IsFailedPrecondition(inputs.status()));
    }
  }
  SECTION("a slurmd pod that does not parse") {
    ClusterObjects objects = Objects();
    objects.pod_jsons.push_back(R"({"metadata": )");
    CHECK(absl::IsFailedPrecondition(BuildRenderInputs(objects, {}).status()));
  }
  SECTION("another cluster's NodeSet that does not parse changes nothing here") {
    ClusterObjects objects = Objects();
    objects.node_set_jsons.push_back(R"({"apiVersion": "tidepool.dev/v1alpha1", "kind": "NodeSet",
        "metadata": {"name": "z", "namespace": "hpc"},
        "spec": {"clusterRef": {"name": "elsewhere"}, "replicas": "many"}})");
    absl::StatusOr<RenderInputs> inputs = BuildRenderInputs(objects, {});
    INFO(inputs.status().ToString());
    CHECK(inputs.ok());
  }
}

// The pod JSON with its tidepool.dev/slurm-attributes annotation (`attributes` is JSON).
std::string WithAttributes(const std::string& pod, const std::string& attributes) {
  std::string escaped;
  for (char c : attributes) {
    if (c == '"') escaped += '\\';
    escaped += c;
  }
  return absl::StrReplaceAll(
      pod, {{R"("namespace": "hpc", "labels")",
             R"("namespace": "hpc", "annotations": {"tidepool.dev/slurm-attributes": ")" + escaped +
                 R"("}, "labels")"}});
}

TEST_CASE("a pod made with other Slurm attributes than its NodeSet's keeps them") {
  ClusterObjects objects = Objects();
  objects.node_set_jsons[1] =
      absl::StrReplaceAll(objects.node_set_jsons[1],
                          {{R"("clusterRef": {"name": "research"})",
                            R"("clusterRef": {"name": "research"}, "slurm": {"cpus": 32})"}});
  objects.pod_jsons = {
      WithAttributes(Pod("h100-01", "h100", "k-1"), R"({"cpus":64,"gres":"gpu:8"})"),
      WithAttributes(Pod("h100-02", "h100", "k-2"), R"({"cpus":32})")};
  absl::StatusOr<RenderInputs> inputs = BuildRenderInputs(objects, {});
  INFO(inputs.status().ToString());
  REQUIRE(inputs.ok());
  REQUIRE(inputs->request->members_size() == 2);
  // Made before the change to 32 CPUs: keeps 64 until the rolling update replaces it.
  REQUIRE(inputs->request->members(0).has_slurm());
  CHECK(inputs->request->members(0).slurm().cpus() == 64);
  CHECK(inputs->request->members(0).slurm().gres() == "gpu:8");
  // Made with the NodeSet's current attributes: nothing pinned.
  CHECK_FALSE(inputs->request->members(1).has_slurm());

  SECTION("attributes that do not read stop the render, naming the pod") {
    for (const std::string& bad :
         {std::string("{"), std::string(R"({"cpus":"many"})"), std::string(R"({"cores":8})")}) {
      objects.pod_jsons = {WithAttributes(Pod("h100-01", "h100", "k-1"), bad)};
      absl::StatusOr<RenderInputs> refused = BuildRenderInputs(objects, {});
      INFO(bad << ": " << refused.status().ToString());
      CHECK(absl::IsFailedPrecondition(refused.status()));
      CHECK(absl::StrContains(refused.status().message(),
                              "hpc/h100-01: annotation tidepool.dev/slurm-attributes"));
    }
  }
}

TEST_CASE("pod views and Node views give the request the JSON would") {
  ClusterObjects from_json = Objects();
  ClusterObjects from_views = Objects();
  for (const std::string& json : from_views.pod_jsons) {
    from_views.pods.push_back(std::make_shared<const api::PodView>(*api::ParsePodView(json)));
  }
  from_views.pod_jsons.clear();
  int json_reads = 0;
  from_views.node_view = [](const std::string& name) -> std::shared_ptr<const api::NodeView> {
    if (name == "k-2") return nullptr;  // not kept as a view: the JSON is asked
    return std::make_shared<const api::NodeView>(*api::ParseNodeView(KubeNode(name)));
  };
  from_views.node_json = [&json_reads](const std::string& name) {
    ++json_reads;
    return KubeNode(name);
  };
  absl::StatusOr<RenderInputs> want = BuildRenderInputs(from_json, {});
  absl::StatusOr<RenderInputs> got = BuildRenderInputs(from_views, {});
  REQUIRE(want.ok());
  REQUIRE(got.ok());
  CHECK(google::protobuf::util::MessageDifferencer::Equals(*got->request, *want->request));
  CHECK(got->skipped == want->skipped);
  CHECK(json_reads == 1);
}

TEST_CASE("the Node cache's view keeps only the render input of a Node's model") {
  std::any stored = NodeViewForRender(KubeNode("k-1"));
  const auto* view = std::any_cast<api::NodeView>(&stored);
  REQUIRE(view != nullptr);
  REQUIRE(view->info.ok());
  CHECK(view->info->metadata().name() == "k-1");
  CHECK(view->info->metadata().labels().at("nvidia.com/gpu.product") == "NVIDIA-H100-80GB-HBM3");
  CHECK(view->info->allocatable().at("nvidia.com/gpu") == "8");
  CHECK(view->info->taints().empty());
  CHECK_FALSE(view->info->unschedulable());
  CHECK(view->info->metadata().resource_version().empty());
  CHECK(view->unschedulable);  // the view's own fields are untouched
  CHECK_FALSE(NodeViewForRender("not json").has_value());

  ClusterObjects from_views = Objects();
  from_views.node_view = [](const std::string& name) {
    return std::make_shared<const api::NodeView>(
        std::any_cast<api::NodeView>(NodeViewForRender(KubeNode(name))));
  };
  absl::StatusOr<RenderInputs> want = BuildRenderInputs(Objects(), {});
  absl::StatusOr<RenderInputs> got = BuildRenderInputs(from_views, {});
  REQUIRE(want.ok());
  REQUIRE(got.ok());
  CHECK(google::protobuf::util::MessageDifferencer::Equals(*got->request, *want->request));
}

TEST_CASE("an unreadable cluster is an error naming it") {
  ClusterObjects objects = Objects();
  objects.cluster_json = R"({"apiVersion": "tidepool.dev/v1alpha1", "kind": "SlurmCluster",
                             "metadata": {"name": "bad"}, "spec": {"clusterName": 7}})";
  absl::StatusOr<RenderInputs> inputs = BuildRenderInputs(objects, {});
  INFO(inputs.status().ToString());
  CHECK(absl::IsInvalidArgument(inputs.status()));
  CHECK(absl::StrContains(inputs.status().message(), "bad"));
  CHECK(absl::StrContains(inputs.status().message(), "spec"));
}

}  // namespace
}  // namespace tidepool::cluster

#include "builders.h"

#include <catch2/catch_test_macros.hpp>

#include "absl/strings/match.h"
#include "k8s/object_json.h"
#include "k8s/ownership.h"

namespace tidepool::nodeset {
namespace {

constexpr char kNodeSet[] = R"({
  "apiVersion": "tidepool.dev/v1alpha1", "kind": "NodeSet",
  "metadata": {"name": "h100", "namespace": "hpc", "uid": "uid-h100", "generation": 2},
  "spec": {
    "clusterRef": {"name": "research"},
    "replicas": 4,
    "namePrefix": "gpu",
    "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
    "template": {
      "metadata": {"labels": {"team": "ml", "tidepool.dev/nodeset": "spoofed"},
                   "annotations": {"note": "x"}},
      "spec": {"containers": [{"name": "slurmd", "resources": {"limits": {"nvidia.com/gpu": 8}}}],
               "tolerations": [{"key": "a", "operator": "Exists"}]}
    },
    "slurm": {"features": ["h100"], "weight": 10}
  }
})";

rapidjson::Document Build(const PodInputs& inputs) {
  absl::StatusOr<std::string> pod = BuildPod(inputs);
  INFO(pod.status().ToString());
  REQUIRE(pod.ok());
  return k8s::ParseJsonObject(*pod, "pod").value();
}

PodInputs Inputs(absl::string_view node_set = kNodeSet) {
  return {.node_set_json = node_set,
          .slurm_name = "gpu-03",
          .node_name = "node-c",
          .compute_image = "slurmd:26.05",
          .template_hash = "sha256:abc"};
}

std::string Label(const rapidjson::Document& pod, const char* key) {
  return k8s::StringMember(pod["metadata"]["labels"], key);
}

TEST_CASE("the slurmd pod is pinned, named and labelled for its Slurm node") {
  const rapidjson::Document pod = Build(Inputs());
  CHECK(k8s::StringMember(pod, "kind") == "Pod");
  CHECK(k8s::StringMember(pod["metadata"], "name") == "gpu-03");
  CHECK(k8s::StringMember(pod["metadata"], "namespace") == "hpc");
  CHECK(k8s::StringMember(pod["spec"], "nodeName") == "node-c");
  CHECK(k8s::StringMember(pod["spec"], "hostname") == "gpu-03");
  CHECK(Label(pod, "tidepool.dev/cluster") == "research");
  CHECK(Label(pod, "tidepool.dev/nodeset") == "h100");  // ours win over the template's
  CHECK(Label(pod, "tidepool.dev/slurm-node") == "gpu-03");
  CHECK(Label(pod, "tidepool.dev/component") == "slurmd");
  CHECK(Label(pod, "team") == "ml");
  CHECK(k8s::StringMember(pod["metadata"]["annotations"], "tidepool.dev/template-hash") ==
        "sha256:abc");
  CHECK(k8s::StringMember(pod["metadata"]["annotations"], "note") == "x");
}

TEST_CASE("the pod's controller is its NodeSet") {
  absl::StatusOr<std::string> pod = BuildPod(Inputs());
  REQUIRE(pod.ok());
  CHECK(k8s::IsControlledBy(*pod, kNodeSet));
  absl::StatusOr<std::optional<k8s::OwnerReference>> owner = k8s::ControllerOf(*pod);
  REQUIRE(owner.ok());
  REQUIRE(owner->has_value());
  CHECK((*owner)->kind == "NodeSet");
  CHECK((*owner)->name == "h100");
  CHECK((*owner)->block_owner_deletion);
}

TEST_CASE("the slurmd container keeps the template's settings and gets the cluster's image") {
  const rapidjson::Document pod = Build(Inputs());
  const rapidjson::Value& containers = pod["spec"]["containers"];
  REQUIRE(containers.Size() == 1);
  CHECK(k8s::StringMember(containers[0], "name") == "slurmd");
  CHECK(k8s::StringMember(containers[0], "image") == "slurmd:26.05");
  CHECK(containers[0]["resources"]["limits"]["nvidia.com/gpu"].GetInt() == 8);
}

TEST_CASE("the template's own image wins over the cluster's") {
  const std::string node_set = R"({"apiVersion":"tidepool.dev/v1alpha1","kind":"NodeSet",
    "metadata":{"name":"a","namespace":"hpc","uid":"u"},
    "spec":{"clusterRef":{"name":"c"},
            "template":{"spec":{"containers":[{"name":"slurmd","image":"mine:1"}]}}}})";
  const rapidjson::Document pod = Build(Inputs(node_set));
  CHECK(k8s::StringMember(pod["spec"]["containers"][0], "image") == "mine:1");
}

TEST_CASE("a NodeSet without a template gets a slurmd container") {
  const std::string node_set = R"({"apiVersion":"tidepool.dev/v1alpha1","kind":"NodeSet",
    "metadata":{"name":"a","namespace":"hpc","uid":"u"},"spec":{"clusterRef":{"name":"c"}}})";
  const rapidjson::Document pod = Build(Inputs(node_set));
  REQUIRE(pod["spec"]["containers"].Size() == 1);
  CHECK(k8s::StringMember(pod["spec"]["containers"][0], "name") == "slurmd");
  CHECK(pod["spec"]["tolerations"].Size() == 6);  // a DaemonSet's
}

TEST_CASE("the NodeSet's tolerations follow the template's, then a DaemonSet's") {
  const rapidjson::Document pod = Build(Inputs());
  const rapidjson::Value& tolerations = pod["spec"]["tolerations"];
  REQUIRE(tolerations.Size() == 8);
  CHECK(k8s::StringMember(tolerations[0], "key") == "a");
  CHECK(k8s::StringMember(tolerations[1], "key") == "nvidia.com/gpu");
  CHECK(k8s::StringMember(tolerations[1], "effect") == "NoSchedule");
  CHECK(k8s::StringMember(tolerations[2], "key") == "node.kubernetes.io/not-ready");
  CHECK(k8s::StringMember(tolerations[2], "effect") == "NoExecute");
  CHECK(k8s::StringMember(tolerations[4], "key") == "node.kubernetes.io/unschedulable");
}

TEST_CASE("a template the pod cannot be built from is refused, naming the field") {
  SECTION("no container named slurmd") {
    const std::string node_set = R"({"metadata":{"name":"a","namespace":"hpc","uid":"u"},
      "spec":{"template":{"spec":{"containers":[{"name":"main","image":"x"}]}}}})";
    absl::StatusOr<std::string> pod = BuildPod(Inputs(node_set));
    REQUIRE_FALSE(pod.ok());
    CHECK(absl::StrContains(pod.status().message(), "spec.template.spec.containers"));
  }
  SECTION("no image anywhere") {
    PodInputs inputs = Inputs();
    inputs.compute_image = "";
    absl::StatusOr<std::string> pod = BuildPod(inputs);
    REQUIRE_FALSE(pod.ok());
    CHECK(absl::StrContains(pod.status().message(), "spec.images.compute"));
  }
}

TEST_CASE("the template hash covers template and slurm, not key order or replicas") {
  const std::string base = R"({"spec":{"replicas":1,"template":{"a":1,"b":{"c":[1,2]}},
                               "slurm":{"weight":1}}})";
  const std::string reordered = R"({"spec":{"slurm":{"weight":1},"replicas":5,
                                    "template":{"b":{"c":[1,2]},"a":1}}})";
  const std::string template_changed = R"({"spec":{"template":{"a":2,"b":{"c":[1,2]}},
                                           "slurm":{"weight":1}}})";
  const std::string slurm_changed = R"({"spec":{"template":{"a":1,"b":{"c":[1,2]}},
                                        "slurm":{"weight":2}}})";
  const std::string hash = TemplateHash(base).value();
  CHECK(absl::StartsWith(hash, "sha256:"));
  CHECK(TemplateHash(reordered).value() == hash);
  CHECK(TemplateHash(template_changed).value() != hash);
  CHECK(TemplateHash(slurm_changed).value() != hash);
  CHECK_FALSE(TemplateHash("[]").ok());
}

TEST_CASE("selector and Node label patch") {
  CHECK(PodSelector("h100") == "tidepool.dev/nodeset=h100");
  CHECK(SlurmNodeLabelPatch("gpu-01") ==
        R"({"metadata":{"labels":{"tidepool.dev/slurm-node":"gpu-01"}}})");
}

}  // namespace
}  // namespace tidepool::nodeset

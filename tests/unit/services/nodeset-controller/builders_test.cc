#include "builders.h"

#include <catch2/catch_test_macros.hpp>
#include <tuple>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
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
          .template_hash = "sha256:abc",
          .cluster_name = "research",
          .munge_key_secret = "research-munge-key",
          .cluster_domain = "cluster.local"};
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

TEST_CASE("the pod records the Slurm attributes it was made with") {
  const rapidjson::Document pod = Build(Inputs());
  CHECK(k8s::StringMember(pod["metadata"]["annotations"], "tidepool.dev/slurm-attributes") ==
        R"({"features":["h100"],"weight":10})");
  const std::string no_slurm = absl::StrReplaceAll(kNodeSet, {{R"(,
    "slurm": {"features": ["h100"], "weight": 10})",
                                                               ""}});
  const rapidjson::Document bare = Build(Inputs(no_slurm));
  CHECK(k8s::StringMember(bare["metadata"]["annotations"], "tidepool.dev/slurm-attributes") ==
        "{}");
}

TEST_CASE("the pod is Ready only with the SlurmNodeInUse gate, after the template's gates") {
  const rapidjson::Document bare = Build(Inputs());
  REQUIRE(bare["spec"]["readinessGates"].Size() == 1);
  CHECK(k8s::StringMember(bare["spec"]["readinessGates"][0], "conditionType") ==
        "tidepool.dev/SlurmNodeInUse");
  const std::string with_gates =
      absl::StrReplaceAll(kNodeSet, {{R"("tolerations": [{"key": "a")",
                                      R"("readinessGates": [{"conditionType": "example.com/warm"},
                                        {"conditionType": "tidepool.dev/SlurmNodeInUse"}],
                     "tolerations": [{"key": "a")"}});
  const rapidjson::Document pod = Build(Inputs(with_gates));
  const rapidjson::Value& gates = pod["spec"]["readinessGates"];
  REQUIRE(gates.Size() == 2);  // not twice
  CHECK(k8s::StringMember(gates[0], "conditionType") == "example.com/warm");
  CHECK(k8s::StringMember(gates[1], "conditionType") == "tidepool.dev/SlurmNodeInUse");
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

// A NodeSet whose template spec is `template_spec` (JSON).
std::string NodeSetWithTemplateSpec(absl::string_view template_spec) {
  return absl::StrCat(R"({"apiVersion":"tidepool.dev/v1alpha1","kind":"NodeSet",
    "metadata":{"name":"h100","namespace":"hpc","uid":"u"},
    "spec":{"clusterRef":{"name":"research"},"template":{"spec":)",
                      template_spec, "}}}");
}

const rapidjson::Value& Slurmd(const rapidjson::Document& pod) {
  for (const rapidjson::Value& container : pod["spec"]["containers"].GetArray()) {
    if (k8s::StringMember(container, "name") == "slurmd") return container;
  }
  FAIL("no slurmd container");
  return pod;
}

// The entry of `list` whose "name" is `name`; null when none.
const rapidjson::Value* Named(const rapidjson::Value& list, absl::string_view name) {
  for (const rapidjson::Value& entry : list.GetArray()) {
    if (k8s::StringMember(entry, "name") == name) return &entry;
  }
  return nullptr;
}

int CountNamed(const rapidjson::Value& list, absl::string_view name) {
  int count = 0;
  for (const rapidjson::Value& entry : list.GetArray()) {
    count += k8s::StringMember(entry, "name") == name ? 1 : 0;
  }
  return count;
}

std::string EnvValue(const rapidjson::Document& pod, absl::string_view name) {
  const rapidjson::Value* env = Named(Slurmd(pod)["env"], name);
  return env == nullptr ? "" : k8s::StringMember(*env, "value");
}

TEST_CASE("the pod mounts the cluster's Slurm configuration, munge key and users") {
  const rapidjson::Document pod = Build(Inputs());
  const rapidjson::Value& volumes = pod["spec"]["volumes"];
  REQUIRE(volumes.Size() == 4);  // with the users and the prolog/epilog runners
  const rapidjson::Value* config = Named(volumes, "slurm-config");
  REQUIRE(config != nullptr);
  CHECK(k8s::StringMember((*config)["configMap"], "name") == "research-slurm-config");
  const rapidjson::Value* munge = Named(volumes, "munge-key");
  REQUIRE(munge != nullptr);
  CHECK(k8s::StringMember((*munge)["secret"], "secretName") == "research-munge-key");
  CHECK(k8s::IntMember((*munge)["secret"], "defaultMode") == 0400);
  // The login users' accounts, which exist only for a cluster with login users.
  const rapidjson::Value* users = Named(volumes, "slurm-users");
  REQUIRE(users != nullptr);
  CHECK(k8s::StringMember((*users)["configMap"], "name") == "research-users");
  CHECK(k8s::BoolMember((*users)["configMap"], "optional"));

  const rapidjson::Value& mounts = Slurmd(pod)["volumeMounts"];
  REQUIRE(mounts.Size() == 4);  // with the users and the prolog/epilog runners
  const rapidjson::Value* config_mount = Named(mounts, "slurm-config");
  REQUIRE(config_mount != nullptr);
  CHECK(k8s::StringMember(*config_mount, "mountPath") == "/etc/tidepool/slurm-config");
  CHECK(k8s::BoolMember(*config_mount, "readOnly"));
  const rapidjson::Value* munge_mount = Named(mounts, "munge-key");
  REQUIRE(munge_mount != nullptr);
  CHECK(k8s::StringMember(*munge_mount, "mountPath") == "/etc/tidepool/munge");
  CHECK(k8s::BoolMember(*munge_mount, "readOnly"));
  const rapidjson::Value* users_mount = Named(mounts, "slurm-users");
  REQUIRE(users_mount != nullptr);
  CHECK(k8s::StringMember(*users_mount, "mountPath") == "/etc/tidepool/users");

  // What images/slurm/entrypoint reads.
  CHECK(EnvValue(pod, "TIDEPOOL_SLURM_CONFIG_DIR") == "/etc/tidepool/slurm-config");
  CHECK(EnvValue(pod, "TIDEPOOL_MUNGE_KEY") == "/etc/tidepool/munge/munge.key");
  CHECK(EnvValue(pod, "TIDEPOOL_USERS_DIR") == "/etc/tidepool/users");
}

TEST_CASE("the template's volumes, mounts and env are kept, its own env values win") {
  const std::string node_set = NodeSetWithTemplateSpec(R"({
    "volumes": [{"name": "scratch", "emptyDir": {}}],
    "containers": [{"name": "slurmd", "image": "mine:1",
      "volumeMounts": [{"name": "scratch", "mountPath": "/scratch"}],
      "env": [{"name": "TZ", "value": "UTC"},
              {"name": "TIDEPOOL_MUNGE_KEY", "value": "/elsewhere/munge.key"}]}]})");
  const rapidjson::Document pod = Build(Inputs(node_set));
  const rapidjson::Value& volumes = pod["spec"]["volumes"];
  REQUIRE(volumes.Size() == 5);  // + config, munge key, users, prolog/epilog runners
  CHECK(k8s::StringMember(volumes[0], "name") == "scratch");
  const rapidjson::Value& mounts = Slurmd(pod)["volumeMounts"];
  REQUIRE(mounts.Size() == 5);
  CHECK(k8s::StringMember(mounts[0], "mountPath") == "/scratch");
  const rapidjson::Value& env = Slurmd(pod)["env"];
  CHECK(env.Size() == 4);
  CHECK(k8s::StringMember(env[0], "name") == "TZ");
  CHECK(CountNamed(env, "TIDEPOOL_MUNGE_KEY") == 1);
  CHECK(EnvValue(pod, "TIDEPOOL_MUNGE_KEY") == "/elsewhere/munge.key");
  CHECK(EnvValue(pod, "TIDEPOOL_SLURM_CONFIG_DIR") == "/etc/tidepool/slurm-config");
}

TEST_CASE("the munge key Secret the cluster names is mounted") {
  PodInputs inputs = Inputs();
  inputs.munge_key_secret = "site-munge";
  const rapidjson::Document pod = Build(inputs);
  const rapidjson::Value* munge = Named(pod["spec"]["volumes"], "munge-key");
  REQUIRE(munge != nullptr);
  CHECK(k8s::StringMember((*munge)["secret"], "secretName") == "site-munge");
}

TEST_CASE("the pod is in the compute Service's subdomain and searches it") {
  SECTION("without DNS settings in the template") {
    const rapidjson::Document pod = Build(Inputs());
    CHECK(k8s::StringMember(pod["spec"], "subdomain") == "research-compute");
    const rapidjson::Value& searches = pod["spec"]["dnsConfig"]["searches"];
    REQUIRE(searches.Size() == 1);
    CHECK(std::string(searches[0].GetString()) == "research-compute.hpc.svc.cluster.local");
    CHECK(k8s::FindMember(pod["spec"], "dnsPolicy") == nullptr);
  }
  SECTION("after the template's search domains, keeping its other settings") {
    const std::string node_set = NodeSetWithTemplateSpec(R"({"containers": [],
      "dnsConfig": {"searches": ["lab.example.org"],
                    "options": [{"name": "ndots", "value": "2"}]}})");
    PodInputs inputs = Inputs(node_set);
    inputs.cluster_domain = "k8s.example.org";
    const rapidjson::Document pod = Build(inputs);
    const rapidjson::Value& dns = pod["spec"]["dnsConfig"];
    REQUIRE(dns["searches"].Size() == 2);
    CHECK(std::string(dns["searches"][0].GetString()) == "lab.example.org");
    CHECK(std::string(dns["searches"][1].GetString()) ==
          "research-compute.hpc.svc.k8s.example.org");
    REQUIRE(dns["options"].Size() == 1);
    CHECK(k8s::StringMember(dns["options"][0], "name") == "ndots");
  }
}

TEST_CASE("a host-network pod uses cluster DNS unless the template chose a policy") {
  SECTION("no policy in the template") {
    const rapidjson::Document pod =
        Build(Inputs(NodeSetWithTemplateSpec(R"({"hostNetwork": true})")));
    CHECK(k8s::StringMember(pod["spec"], "dnsPolicy") == "ClusterFirstWithHostNet");
  }
  SECTION("the template's policy wins") {
    const rapidjson::Document pod =
        Build(Inputs(NodeSetWithTemplateSpec(R"({"hostNetwork": true, "dnsPolicy": "Default"})")));
    CHECK(k8s::StringMember(pod["spec"], "dnsPolicy") == "Default");
  }
}

TEST_CASE("a template using the wiring's volume names or mount paths is refused") {
  SECTION("a volume named slurm-config") {
    absl::StatusOr<std::string> pod = BuildPod(Inputs(
        NodeSetWithTemplateSpec(R"({"volumes": [{"name": "slurm-config", "emptyDir": {}}]})")));
    REQUIRE_FALSE(pod.ok());
    CHECK(absl::IsInvalidArgument(pod.status()));
    CHECK(absl::StrContains(pod.status().message(), "spec.template.spec.volumes"));
    CHECK(absl::StrContains(pod.status().message(), "slurm-config"));
  }
  SECTION("a volume named munge-key") {
    absl::StatusOr<std::string> pod = BuildPod(Inputs(NodeSetWithTemplateSpec(
        R"({"volumes": [{"name": "munge-key", "secret": {"secretName": "x"}}]})")));
    REQUIRE_FALSE(pod.ok());
    CHECK(absl::StrContains(pod.status().message(), "spec.template.spec.volumes"));
    CHECK(absl::StrContains(pod.status().message(), "munge-key"));
  }
  SECTION("a volume named slurm-users") {
    absl::StatusOr<std::string> pod = BuildPod(Inputs(
        NodeSetWithTemplateSpec(R"({"volumes": [{"name": "slurm-users", "emptyDir": {}}]})")));
    REQUIRE_FALSE(pod.ok());
    CHECK(absl::StrContains(pod.status().message(), "slurm-users"));
  }
  SECTION("a mount at the users' path") {
    absl::StatusOr<std::string> pod = BuildPod(Inputs(NodeSetWithTemplateSpec(
        R"({"volumes": [{"name": "u", "emptyDir": {}}], "containers": [{"name": "slurmd",
            "volumeMounts": [{"name": "u", "mountPath": "/etc/tidepool/users"}]}]})")));
    REQUIRE_FALSE(pod.ok());
    CHECK(absl::StrContains(pod.status().message(), "/etc/tidepool/users"));
  }
  SECTION("a mount at the munge key's path") {
    absl::StatusOr<std::string> pod = BuildPod(Inputs(NodeSetWithTemplateSpec(
        R"({"volumes": [{"name": "keys", "emptyDir": {}}], "containers": [{"name": "slurmd",
            "volumeMounts": [{"name": "keys", "mountPath": "/etc/tidepool/munge"}]}]})")));
    REQUIRE_FALSE(pod.ok());
    CHECK(absl::StrContains(pod.status().message(),
                            "spec.template.spec.containers[slurmd].volumeMounts"));
  }
}

TEST_CASE("the cluster wiring leaves the template hash as it was") {
  // The hash of kNodeSet before the pods were wired to their cluster: pods built by an
  // older controller must not look outdated (and be rolled) after an upgrade.
  const std::string hash = TemplateHash(kNodeSet).value();
  CHECK(hash == "sha256:cae3e7f2e615135ecfe31630b65e63d1bf867fa616376b060a4718a4fa8fc886");
  PodInputs inputs = Inputs();
  inputs.template_hash = hash;
  inputs.munge_key_secret = "site-munge";
  inputs.cluster_domain = "k8s.example.org";
  const rapidjson::Document pod = Build(inputs);
  CHECK(k8s::StringMember(pod["metadata"]["annotations"], "tidepool.dev/template-hash") == hash);
  CHECK(TemplateHash(kNodeSet).value() == hash);
}

TEST_CASE(
    "the cluster's prolog and epilog ConfigMaps are mounted executable where slurm.conf runs "
    "them") {
  PodInputs inputs = Inputs();
  inputs.prolog_config_map = "research-prolog";
  inputs.epilog_config_map = "research-epilog";
  const rapidjson::Document pod = Build(inputs);
  const rapidjson::Value& volumes = pod["spec"]["volumes"];
  CHECK(volumes.Size() == 6);  // config, munge key, users, runners, prolog, epilog
  for (const auto& [volume, config_map, path] :
       {std::tuple{"slurm-prolog", "research-prolog", "/etc/slurm/prolog.d"},
        std::tuple{"slurm-epilog", "research-epilog", "/etc/slurm/epilog.d"}}) {
    INFO(volume);
    const rapidjson::Value* scripts = Named(volumes, volume);
    REQUIRE(scripts != nullptr);
    CHECK(k8s::StringMember((*scripts)["configMap"], "name") == config_map);
    CHECK(k8s::IntMember((*scripts)["configMap"], "defaultMode") == 0755);
    const rapidjson::Value* mount = Named(Slurmd(pod)["volumeMounts"], volume);
    REQUIRE(mount != nullptr);
    CHECK(k8s::StringMember(*mount, "mountPath") == path);
    CHECK(k8s::BoolMember(*mount, "readOnly"));
  }
}

TEST_CASE("the runners slurm.conf names come executable from the slurm-config ConfigMap") {
  PodInputs inputs = Inputs();
  inputs.prolog_config_map = "research-prolog";
  inputs.epilog_config_map = "research-epilog";
  const rapidjson::Document pod = Build(inputs);
  const rapidjson::Value* runners = Named(pod["spec"]["volumes"], "slurm-hook-runners");
  REQUIRE(runners != nullptr);
  const rapidjson::Value& source = (*runners)["configMap"];
  CHECK(k8s::StringMember(source, "name") == "research-slurm-config");
  // Optional: a config rendered before the cluster named scripts has no runner yet.
  CHECK(k8s::BoolMember(source, "optional"));
  REQUIRE(source["items"].Size() == 2);
  CHECK(k8s::StringMember(source["items"][0], "key") == "prolog");
  CHECK(k8s::StringMember(source["items"][0], "path") == "prolog");
  CHECK(k8s::IntMember(source["items"][0], "mode") == 0755);
  CHECK(k8s::StringMember(source["items"][1], "key") == "epilog");
  const rapidjson::Value* mount = Named(Slurmd(pod)["volumeMounts"], "slurm-hook-runners");
  REQUIRE(mount != nullptr);
  CHECK(k8s::StringMember(*mount, "mountPath") == "/etc/tidepool/hooks");
  CHECK(k8s::BoolMember(*mount, "readOnly"));
}

TEST_CASE("only the scripts the cluster names are mounted") {
  SECTION("neither") {
    const rapidjson::Document pod = Build(Inputs());
    CHECK(Named(pod["spec"]["volumes"], "slurm-prolog") == nullptr);
    CHECK(Named(pod["spec"]["volumes"], "slurm-epilog") == nullptr);
    // The runners are there all the same: a later spec.prolog finds them in place.
    CHECK(Named(pod["spec"]["volumes"], "slurm-hook-runners") != nullptr);
    CHECK(Named(Slurmd(pod)["volumeMounts"], "slurm-hook-runners") != nullptr);
  }
  SECTION("an epilog alone") {
    PodInputs inputs = Inputs();
    inputs.epilog_config_map = "research-epilog";
    const rapidjson::Document pod = Build(inputs);
    CHECK(Named(pod["spec"]["volumes"], "slurm-prolog") == nullptr);
    CHECK(Named(pod["spec"]["volumes"], "slurm-epilog") != nullptr);
    CHECK(Named(Slurmd(pod)["volumeMounts"], "slurm-prolog") == nullptr);
    CHECK(Named(Slurmd(pod)["volumeMounts"], "slurm-epilog") != nullptr);
  }
}

TEST_CASE("a template using the scripts' volume names or mount paths is refused") {
  const auto expect_refused = [](const std::string& node_set) {
    PodInputs inputs = Inputs(node_set);
    inputs.prolog_config_map = "research-prolog";
    inputs.epilog_config_map = "research-epilog";
    absl::StatusOr<std::string> pod = BuildPod(inputs);
    REQUIRE_FALSE(pod.ok());
    CHECK(absl::IsInvalidArgument(pod.status()));
    CHECK(absl::StrContains(pod.status().message(), "spec.template.spec."));
    CHECK(absl::StrContains(pod.status().message(), "log.configMap scripts"));
  };
  SECTION("a volume named slurm-prolog") {
    expect_refused(
        NodeSetWithTemplateSpec(R"({"volumes": [{"name": "slurm-prolog", "emptyDir": {}}]})"));
  }
  SECTION("a mount at the epilog directory") {
    expect_refused(NodeSetWithTemplateSpec(
        R"({"volumes": [{"name": "mine", "emptyDir": {}}], "containers": [{"name": "slurmd",
            "volumeMounts": [{"name": "mine", "mountPath": "/etc/slurm/epilog.d"}]}]})"));
  }
}

TEST_CASE("the prolog and epilog wiring leaves the template hash as it was") {
  const std::string hash = TemplateHash(kNodeSet).value();
  PodInputs inputs = Inputs();
  inputs.prolog_config_map = "research-prolog";
  inputs.epilog_config_map = "research-epilog";
  Build(inputs);
  CHECK(TemplateHash(kNodeSet).value() == hash);
  CHECK(hash == "sha256:cae3e7f2e615135ecfe31630b65e63d1bf867fa616376b060a4718a4fa8fc886");
}

TEST_CASE("selector and Node label patch") {
  CHECK(PodSelector("h100") == "tidepool.dev/nodeset=h100");
  CHECK(SlurmNodeLabelPatch("gpu-01") ==
        R"({"metadata":{"labels":{"tidepool.dev/slurm-node":"gpu-01"}}})");
}

}  // namespace
}  // namespace tidepool::nodeset

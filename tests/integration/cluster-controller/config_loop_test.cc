// cluster-controller's config loop end to end over gRPC, as separate processes: a real
// API server with the CRDs, config-renderer, slurm-syncer against the real Slurm, and
// cluster-controller. The test creates the SlurmCluster, a NodeSet, Nodes and slurmd pods
// itself (no nodeset-controller here) and watches what the loop writes and when it asks
// Slurm to reconfigure.
#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "k8s/client.h"
#include "k8s/config.h"
#include "k8s/object_json.h"
#include "k8s/resource.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "support/child_process.h"
#include "support/eventually.h"
#include "support/http_get.h"
#include "support/kube_conditions.h"
#include "support/kube_events.h"
#include "support/kube_namespace.h"
#include "support/ports.h"
#include "support/testenv.h"
#include "tidepool/resource_types.h"

namespace tidepool::testing {
namespace {

constexpr char kNamespace[] = "tidepool-config-loop";

std::string BinaryFromEnv(const char* variable) {
  const char* path = std::getenv(variable);
  REQUIRE(path != nullptr);
  return path;
}

void RequireOk(const absl::Status& status) {
  INFO(status.ToString());
  REQUIRE(status.ok());
}

std::optional<absl::Duration> Eventually(const std::function<bool()>& check,
                                         absl::Duration timeout = absl::Seconds(30)) {
  return PollUntil(check, timeout, absl::Milliseconds(50));
}

struct Service {
  ChildProcess process;
  uint16_t grpc_port;
  uint16_t http_port;
};

Service Start(const char* binary_variable, std::vector<std::string> args) {
  const uint16_t grpc = FreeLoopbackPort().value();
  const uint16_t http = FreeLoopbackPort().value();
  args.insert(args.begin(), {"--listen_address=127.0.0.1", absl::StrCat("--grpc_port=", grpc),
                             absl::StrCat("--http_port=", http)});
  absl::StatusOr<ChildProcess> process = ChildProcess::Spawn(BinaryFromEnv(binary_variable), args);
  REQUIRE(process.ok());
  return {*std::move(process), grpc, http};
}

void AwaitReady(const Service& service) {
  const bool ready = Eventually([&] {
                       absl::StatusOr<HttpResponse> r =
                           HttpGet(absl::StrCat("http://127.0.0.1:", service.http_port, "/readyz"));
                       return r.ok() && r->status == 200;
                     }).has_value();
  INFO(service.process.Output());
  REQUIRE(ready);
}

// A field of an object fresh from the server ("" when absent).
std::string Field(k8s::Client& client, const k8s::ResourceType& type, const std::string& name,
                  const std::function<std::string(const rapidjson::Value&)>& read) {
  absl::StatusOr<std::string> json = client.Get(type, kNamespace, name);
  if (!json.ok()) return "";
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(*json, name);
  return doc.ok() ? read(*doc) : "";
}

std::function<std::string(const rapidjson::Value&)> Path(std::vector<std::string> keys) {
  return [keys](const rapidjson::Value& object) -> std::string {
    const rapidjson::Value* at = &object;
    for (size_t i = 0; i + 1 < keys.size(); ++i) {
      at = k8s::FindMember(*at, keys[i].c_str());
      if (at == nullptr) return "";
    }
    return k8s::StringMember(*at, keys.back().c_str());
  };
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

void CreateKubeNode(k8s::Client& client, const std::string& node) {
  (void)client.Delete(k8s::Nodes(), "", node, {.grace_period_seconds = 0});
  RequireOk(client
                .Create(k8s::Nodes(), "",
                        absl::StrCat(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")",
                                     node, R"(","labels":{"zone":"a"}}})"))
                .status());
  RequireOk(client
                .MergePatch(k8s::Nodes(), "", node,
                            R"({"status":{"allocatable":{"cpu":"4","memory":"8Gi"}}})", {},
                            "status")
                .status());
}

// `"annotations":{"tidepool.dev/slurm-attributes":"<json>"},` or "" for none.
std::string SlurmAttributesAnnotation(const std::string& json) {
  if (json.empty()) return "";
  rapidjson::StringBuffer quoted;
  rapidjson::Writer<rapidjson::StringBuffer> writer(quoted);
  writer.String(json.c_str(), json.size());
  return absl::StrCat(R"("annotations":{"tidepool.dev/slurm-attributes":)", quoted.GetString(),
                      "},");
}

// The line of `conf` that starts with `prefix`, "" when none does.
std::string LineStarting(const std::string& conf, const std::string& prefix) {
  for (absl::string_view line : absl::StrSplit(conf, '\n')) {
    if (absl::StartsWith(line, prefix)) return std::string(line);
  }
  return "";
}

// A slurmd pod of NodeSet "cpu", controlled by it as the nodeset-controller would make it
// (only such pods become Slurm nodes).
// `slurm_attributes`: the NodeSet's spec.slurm (JSON) the pod was made with, as the
// nodeset-controller records it; empty: a pod from before that annotation.
void CreateMember(k8s::Client& client, const std::string& pod, const std::string& node,
                  const std::string& slurm_attributes = "") {
  absl::StatusOr<std::string> node_set = client.Get(api::NodeSets(), kNamespace, "cpu");
  RequireOk(node_set.status());
  const std::string uid = k8s::ParseObjectMeta(*node_set)->uid;
  CreateKubeNode(client, node);
  RequireOk(client
                .Create(k8s::Pods(), kNamespace,
                        absl::StrCat(
                            R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")", pod, R"(",)",
                            SlurmAttributesAnnotation(slurm_attributes),
                            R"("labels":{"tidepool.dev/component":"slurmd",
                        "tidepool.dev/cluster":"loop","tidepool.dev/nodeset":"cpu",
                        "tidepool.dev/slurm-node":")",
                            pod, R"("},"ownerReferences":[{"apiVersion":"tidepool.dev/v1alpha1",)",
                            R"("kind":"NodeSet","name":"cpu","uid":")", uid,
                            R"(","controller":true}]},"spec":{"nodeName":")", node,
                            R"(","containers":[{"name":"slurmd","image":"slurmd"}]}})"))
                .status());
}

// A generated auth Secret as the test reads it back.
struct GeneratedSecret {
  std::string resource_version;
  std::string data;  // base64, as stored
};

// Checks the Secret `name` the controller generated for the SlurmCluster `cluster_uid`:
// owned by it, labelled, immutable, and a key of `bytes` under `data_key`.
GeneratedSecret CheckGeneratedSecret(k8s::Client& client, const std::string& name,
                                     const std::string& component, const char* data_key,
                                     size_t bytes, const std::string& cluster_uid) {
  absl::StatusOr<std::string> json = client.Get(k8s::Secrets(), kNamespace, name);
  RequireOk(json.status());
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(*json, name);
  RequireOk(doc.status());
  INFO(name);
  CHECK(k8s::StringMember(*doc, "type") == "Opaque");
  CHECK(k8s::BoolMember(*doc, "immutable"));
  CHECK(Path({"metadata", "labels", "tidepool.dev/component"})(*doc) == component);
  CHECK(Path({"metadata", "labels", "tidepool.dev/cluster"})(*doc) == "loop");
  const rapidjson::Value* metadata = k8s::FindMember(*doc, "metadata");
  REQUIRE(metadata != nullptr);
  const rapidjson::Value* found = k8s::FindMember(*metadata, "ownerReferences");
  REQUIRE(found != nullptr);
  const rapidjson::Value& owners = *found;
  REQUIRE(owners.IsArray());
  REQUIRE(owners.Size() == 1);
  CHECK(k8s::StringMember(owners[0], "kind") == "SlurmCluster");
  CHECK(k8s::StringMember(owners[0], "uid") == cluster_uid);
  CHECK(k8s::BoolMember(owners[0], "controller"));
  CHECK(k8s::BoolMember(owners[0], "blockOwnerDeletion"));
  const std::string data = Path({"data", data_key})(*doc);
  std::string key;
  REQUIRE(absl::Base64Unescape(data, &key));
  CHECK(key.size() == bytes);
  return {Path({"metadata", "resourceVersion"})(*doc), data};
}

struct Fixture {
  Fixture() : kube(Kubernetes().value()), slurm(Slurm().value()) {
    absl::StatusOr<CommandResult> crds =
        Kubectl(kube, {"apply", "-f", SourceRoot() + "/manifests/crds"});
    REQUIRE(crds.ok());
    REQUIRE(crds->exit_code == 0);
    RequireOk(Kubectl(kube, {"wait", "--for=condition=Established", "--timeout=60s", "crd",
                             "slurmclusters.tidepool.dev", "nodesets.tidepool.dev"})
                  .status());
    client = std::make_unique<k8s::Client>(k8s::LoadKubeconfig(kube.kubeconfig).value());
    RequireOk(EnsurePodNamespace(*client, kNamespace));
    Cleanup();
    renderer = std::make_unique<Service>(Start("TIDEPOOL_CONFIG_RENDERER", {}));
    syncer = std::make_unique<Service>(
        Start("TIDEPOOL_SLURM_SYNCER",
              {"--slurm_rest_url=" + slurm.rest_url, "--slurm_jwt_key_file=" + slurm.jwt_key_file,
               "--slurm_jwt_user=" + slurm.token_user, "--sync_kubernetes=false"}));
    controller = std::make_unique<Service>(StartController(absl::Seconds(1)));
    AwaitReady(*renderer);
    AwaitReady(*syncer);
    AwaitReady(*controller);
  }
  Service StartController(absl::Duration propagation_delay,
                          const std::string& verify_config_loaded = "auto") {
    return Start(
        "TIDEPOOL_CLUSTER_CONTROLLER",
        {"--kubeconfig=" + kube.kubeconfig, "--verify_config_loaded=" + verify_config_loaded,
         absl::StrCat("--renderer_address=127.0.0.1:", renderer->grpc_port),
         absl::StrCat("--syncer_address=127.0.0.1:", syncer->grpc_port),
         absl::StrCat("--config_propagation_delay=", absl::FormatDuration(propagation_delay)),
         // Shorter than the default 30 s, so the re-send backoff shows in seconds.
         "--config_load_timeout=8s", absl::StrCat("--watch_namespace=", kNamespace),
         absl::StrCat("--leader_election_namespace=", kNamespace), "--log_level=debug",
         // Slurm runs on the host here (tools/testenv/slurm), not as pods.
         "--control_plane=external"});
  }
  ~Fixture() {
    controller.reset();
    Cleanup();
  }
  void Cleanup() {
    for (const char* pod : {"cpu-01", "cpu-02"}) {
      (void)client->Delete(k8s::Pods(), kNamespace, pod, {.grace_period_seconds = 0});
    }
    for (const char* node : {"loop-k1", "loop-k2"}) (void)client->Delete(k8s::Nodes(), "", node);
    (void)client->Delete(api::NodeSets(), kNamespace, "cpu");
    (void)client->Delete(api::SlurmClusters(), kNamespace, "loop");
    (void)client->Delete(k8s::ConfigMaps(), kNamespace, "loop-slurm-config");
    // Owned by the cluster, but the test environment may run no garbage collector; one
    // left behind would be a foreign cluster's to the next "loop".
    for (const char* secret : {"loop-munge-key", "loop-jwt-key", "site-munge"}) {
      (void)client->Delete(k8s::Secrets(), kNamespace, secret);
    }
  }
  int Reconfigures() { return Count(syncer->process.Output(), "event=reconfigured"); }
  std::string ConfigMapHash() {
    return Field(*client, k8s::ConfigMaps(), "loop-slurm-config",
                 Path({"metadata", "annotations", "tidepool.dev/config-hash"}));
  }
  std::string ConfigMapWrittenAt() {
    return Field(*client, k8s::ConfigMaps(), "loop-slurm-config",
                 Path({"metadata", "annotations", "tidepool.dev/config-written-at"}));
  }
  std::string SlurmConf() {
    return Field(*client, k8s::ConfigMaps(), "loop-slurm-config", Path({"data", "slurm.conf"}));
  }
  std::string ClusterStatus(const std::string& key) {
    return Field(*client, api::SlurmClusters(), "loop", Path({"status", key}));
  }
  std::string ClusterCondition(const std::string& type) {
    return Field(*client, api::SlurmClusters(), "loop", Condition(type));
  }

  // Waits for the cluster's condition `type` to read "status/reason/..." starting with
  // `prefix`; fails showing the controller's log if it does not.
  void RequireCondition(const std::string& type, const std::string& prefix) {
    const bool reached =
        Eventually([&] { return absl::StartsWith(ClusterCondition(type), prefix); }).has_value();
    INFO(type << " is " << ClusterCondition(type));
    INFO(controller->process.Output());
    REQUIRE(reached);
  }

  KubernetesEnv kube;
  SlurmEnv slurm;
  std::unique_ptr<k8s::Client> client;
  std::unique_ptr<Service> renderer, syncer, controller;
};

TEST_CASE("the config loop renders, writes the ConfigMap, reconfigures once per change") {
  Fixture f;
  RequireOk(f.client
                ->Create(api::SlurmClusters(), kNamespace,
                         R"({"apiVersion":"tidepool.dev/v1alpha1","kind":"SlurmCluster",
              "metadata":{"name":"loop"},"spec":{"clusterName":"loop",
              "partitions":[{"name":"cpu","nodeSets":["cpu"],"default":true}]}})")
                .status());
  RequireOk(f.client
                ->Create(api::NodeSets(), kNamespace,
                         R"({"apiVersion":"tidepool.dev/v1alpha1","kind":"NodeSet",
              "metadata":{"name":"cpu"},"spec":{"clusterRef":{"name":"loop"},
              "slurm":{"features":["cpu"]}}})")
                .status());
  CreateMember(*f.client, "cpu-01", "loop-k1");

  auto took = Eventually([&] { return absl::StrContains(f.SlurmConf(), "NodeName=cpu-01"); });
  INFO(f.controller->process.Output());
  REQUIRE(took.has_value());
  const std::string first_hash = f.ConfigMapHash();
  CHECK(absl::StartsWith(first_hash, "sha256:"));
  // When it was written is on the ConfigMap, for a leader that did not write it.
  CHECK(k8s::ParseApiTime(f.ConfigMapWrittenAt()).ok());
  CHECK(absl::StrContains(f.SlurmConf(), "PartitionName=cpu"));
  REQUIRE(Eventually([&] { return f.ClusterStatus("configHash") == first_hash; }).has_value());
  CHECK(absl::StartsWith(f.ClusterCondition("ConfigRendered"), "True/Rendered/1 nodes"));
  CHECK(absl::StartsWith(f.ClusterCondition("Ready"), "True/ConfigApplied"));
  CHECK(f.Reconfigures() == 1);

  SECTION("unchanged input, or a Node change the render does not read, touches nothing") {
    const std::string version = Field(*f.client, k8s::ConfigMaps(), "loop-slurm-config",
                                      Path({"metadata", "resourceVersion"}));
    RequireOk(f.client
                  ->MergePatch(k8s::Nodes(), "", "loop-k1",
                               R"({"metadata":{"annotations":{"heartbeat":"1"}}})")
                  .status());
    absl::SleepFor(absl::Seconds(4));
    CHECK(Field(*f.client, k8s::ConfigMaps(), "loop-slurm-config",
                Path({"metadata", "resourceVersion"})) == version);
    CHECK(f.Reconfigures() == 1);
  }

  SECTION("a new member re-renders and reconfigures once more") {
    CreateMember(*f.client, "cpu-02", "loop-k2");
    REQUIRE(
        Eventually([&] { return absl::StrContains(f.SlurmConf(), "cpu-[01-02]"); }).has_value());
    REQUIRE(
        Eventually([&] { return f.ClusterStatus("configHash") == f.ConfigMapHash(); }).has_value());
    CHECK(f.ConfigMapHash() != first_hash);
    CHECK(f.Reconfigures() == 2);
  }

  SECTION("a new leader waits out the propagation delay of a ConfigMap it did not write") {
    // The leader wrote the ConfigMap just now and went away before reconfiguring: Slurm
    // runs an older config. Its successor counts the delay from the ConfigMap's write
    // time, not from its own start.
    f.controller.reset();  // a graceful stop releases the lease
    RequireOk(f.client
                  ->MergePatch(api::SlurmClusters(), kNamespace, "loop",
                               R"({"status":{"configHash":"sha256:older"}})", {}, "status")
                  .status());
    const absl::Duration delay = absl::Seconds(8);
    const absl::Time written = absl::Now();
    RequireOk(f.client
                  ->MergePatch(k8s::ConfigMaps(), kNamespace, "loop-slurm-config",
                               absl::StrCat(R"({"metadata":{"annotations":{")",
                                            "tidepool.dev/config-written-at", R"(":")",
                                            k8s::FormatMicroTime(written), R"("}}})"))
                  .status());
    f.controller = std::make_unique<Service>(f.StartController(delay));
    AwaitReady(*f.controller);
    absl::SleepFor(written + delay - absl::Seconds(1) - absl::Now());
    CHECK(f.Reconfigures() == 1);  // not yet
    const bool reconfigured = Eventually([&] { return f.Reconfigures() == 2; }).has_value();
    INFO(f.controller->process.Output());
    REQUIRE(reconfigured);
    CHECK(Eventually([&] { return f.ClusterStatus("configHash") == first_hash; }).has_value());
  }

  SECTION("with the load check, a reconfigure slurmctld did not load is reported and sent again") {
    // The host's slurmctld never reads the rendered files: with an external control plane
    // the check is off unless asked for, and on it finds the rendered nodes missing.
    f.controller.reset();
    f.controller = std::make_unique<Service>(f.StartController(absl::Seconds(1), "true"));
    AwaitReady(*f.controller);
    CreateMember(*f.client, "cpu-02", "loop-k2");
    f.RequireCondition("Ready", "False/ConfigNotLoaded/");
    CHECK(absl::StrContains(f.ClusterCondition("Ready"), "slurmctld does not list cpu-0"));
    CHECK(f.ClusterStatus("configHash") == first_hash);
    CHECK(f.Reconfigures() == 2);
    // Sent again once the load timeout (8 s here) has passed without the nodes showing.
    REQUIRE(Eventually([&] { return f.Reconfigures() == 3; }, absl::Seconds(25)).has_value());
    CHECK(f.ClusterStatus("configHash") == first_hash);
    // The next one waits twice as long (16 s), not another 8 s: each restarts slurmctld.
    absl::SleepFor(absl::Seconds(12));
    CHECK(f.Reconfigures() == 3);
    const std::vector<std::string> notes = EventNotes(*f.client, kNamespace, "ConfigNotLoaded");
    INFO(absl::StrJoin(notes, "\n"));
    CHECK(std::any_of(notes.begin(), notes.end(), [](const std::string& note) {
      return absl::StrContains(note, "of reconfigure 1; reconfiguring again (the next after 16s)");
    }));
  }

  SECTION("a member whose Node is gone from the cache stops the render, it does not drop out") {
    // cpu-01's pod is still bound (its slurmd may run jobs): rendering without it would
    // remove a live node from Slurm, and Slurm would end its jobs.
    CreateMember(*f.client, "cpu-02", "loop-k2");
    REQUIRE(
        Eventually([&] { return f.ClusterStatus("configHash") == f.ConfigMapHash(); }).has_value());
    REQUIRE(
        Eventually([&] { return absl::StrContains(f.SlurmConf(), "cpu-[01-02]"); }).has_value());
    const std::string hash = f.ConfigMapHash();
    const int reconfigures = f.Reconfigures();
    RequireOk(f.client->Delete(k8s::Nodes(), "", "loop-k1").status());
    f.RequireCondition("ConfigRendered", "False/RenderFailed/");
    CHECK(absl::StrContains(f.ClusterCondition("ConfigRendered"), "cpu-01: Node loop-k1"));
    CHECK(f.ConfigMapHash() == hash);
    CHECK(f.Reconfigures() == reconfigures);
    // The Node back: rendered again as before, nothing to load.
    CreateKubeNode(*f.client, "loop-k1");
    CHECK(Eventually([&] {
            return absl::StartsWith(f.ClusterCondition("ConfigRendered"), "True/Rendered/2 nodes");
          }).has_value());
  }

  SECTION("changed Slurm attributes reach only the nodes whose pods were made with them") {
    // cpu-02 was made with the NodeSet's attributes of now; they change after. It keeps
    // them until the rolling update (drain first) replaces its pod: Slurm ends the jobs of
    // a node that loses CPUs or GPUs on reconfigure. cpu-01 predates the annotation and
    // follows the NodeSet.
    CreateMember(*f.client, "cpu-02", "loop-k2",
                 R"({"cpus":0,"features":["cpu"],"realMemoryMiB":0,"reservedMemoryMiB":4096})");
    REQUIRE(
        Eventually([&] { return absl::StrContains(f.SlurmConf(), "cpu-[01-02]"); }).has_value());
    RequireOk(f.client
                  ->MergePatch(api::NodeSets(), kNamespace, "cpu",
                               R"({"spec":{"slurm":{"features":["cpu","v2"]}}})")
                  .status());
    const bool rendered = Eventually([&] {
                            return absl::StrContains(
                                LineStarting(f.SlurmConf(), "NodeName=cpu-01 "), "Feature=cpu,v2");
                          }).has_value();
    INFO(f.SlurmConf());
    REQUIRE(rendered);
    const std::string kept = LineStarting(f.SlurmConf(), "NodeName=cpu-02 ");
    CHECK(absl::StrContains(kept, "Feature=cpu "));
    CHECK_FALSE(absl::StrContains(kept, "v2"));
    // Its replacement, made with the new attributes, gets them.
    RequireOk(
        f.client->Delete(k8s::Pods(), kNamespace, "cpu-02", {.grace_period_seconds = 0}).status());
    REQUIRE(Eventually([&] {
              return LineStarting(f.SlurmConf(), "NodeName=cpu-02 ").empty();
            }).has_value());
    CreateMember(
        *f.client, "cpu-02", "loop-k2",
        R"({"cpus":0,"features":["cpu","v2"],"realMemoryMiB":0,"reservedMemoryMiB":4096})");
    CHECK(Eventually([&] {
            return absl::StrContains(f.SlurmConf(), "NodeName=cpu-[01-02]") &&
                   absl::StrContains(LineStarting(f.SlurmConf(), "NodeName=cpu-[01-02] "),
                                     "Feature=cpu,v2");
          }).has_value());
  }

  SECTION("a feature label the Node cache did not keep is read after its relist") {
    // The Node cache keeps the labels renders read; "zone" was none until now. The render
    // waits for the relist that reads it (never rendering the Node without it), then has it.
    const size_t render_failures = EventNotes(*f.client, kNamespace, "RenderFailed").size();
    RequireOk(f.client
                  ->MergePatch(api::NodeSets(), kNamespace, "cpu",
                               R"({"spec":{"slurm":{"featureLabels":{"zone":"zone-"}}}})")
                  .status());
    const bool rendered =
        Eventually([&] {
          return absl::StrContains(LineStarting(f.SlurmConf(), "NodeName=cpu-01 "), "zone-a");
        }).has_value();
    INFO(f.SlurmConf());
    INFO(f.controller->process.Output());
    REQUIRE(rendered);
    CHECK(absl::StrContains(f.controller->process.Output(), "node_cache_relist"));
    // Waiting for the relist is no render failure.
    CHECK(EventNotes(*f.client, kNamespace, "RenderFailed").size() == render_failures);
    CHECK(absl::StartsWith(f.ClusterCondition("ConfigRendered"), "True/Rendered/1 nodes"));
    CHECK(Eventually([&] { return f.Reconfigures() == 2; }).has_value());
  }

  SECTION("invalid input is reported in status and changes neither ConfigMap nor Slurm") {
    RequireOk(f.client
                  ->MergePatch(api::SlurmClusters(), kNamespace, "loop",
                               R"({"spec":{"extraConfig":"NodeName=evil CPUs=1\n"}})")
                  .status());
    f.RequireCondition("ConfigRendered", "False/RenderFailed/");
    CHECK(absl::StrContains(f.ClusterCondition("ConfigRendered"), "NodeName"));
    CHECK(absl::StartsWith(f.ClusterCondition("Ready"), "False/RenderFailed"));
    CHECK(f.ConfigMapHash() == first_hash);
    CHECK(f.ClusterStatus("configHash") == first_hash);
    CHECK(f.Reconfigures() == 1);
  }
}

TEST_CASE("the auth Secrets are generated once and kept; a missing user Secret is reported") {
  Fixture f;
  RequireOk(f.client
                ->Create(api::SlurmClusters(), kNamespace,
                         R"({"apiVersion":"tidepool.dev/v1alpha1","kind":"SlurmCluster",
              "metadata":{"name":"loop"},"spec":{"clusterName":"loop",
              "partitions":[{"name":"cpu","nodeSets":["cpu"],"default":true}]}})")
                .status());
  RequireOk(f.client
                ->Create(api::NodeSets(), kNamespace,
                         R"({"apiVersion":"tidepool.dev/v1alpha1","kind":"NodeSet",
              "metadata":{"name":"cpu"},"spec":{"clusterRef":{"name":"loop"}}})")
                .status());
  CreateMember(*f.client, "cpu-01", "loop-k1");
  const std::string uid = Field(*f.client, api::SlurmClusters(), "loop", Path({"metadata", "uid"}));
  auto generated = [&](const char* name) {
    return !Field(*f.client, k8s::Secrets(), name, Path({"metadata", "resourceVersion"})).empty();
  };
  const bool created = Eventually([&] {
                         return generated("loop-munge-key") && generated("loop-jwt-key");
                       }).has_value();
  INFO(f.controller->process.Output());
  REQUIRE(created);
  const GeneratedSecret munge =
      CheckGeneratedSecret(*f.client, "loop-munge-key", "munge-key", "munge.key", 1024, uid);
  const GeneratedSecret jwt =
      CheckGeneratedSecret(*f.client, "loop-jwt-key", "jwt-key", "jwt_hs256.key", 64, uid);
  f.RequireCondition("Ready", "True/ConfigApplied");
  const std::string output = f.controller->process.Output();
  CHECK(Count(output, "auth_secret_created") == 2);
  // Neither the keys nor a piece of them reach the log.
  CHECK_FALSE(absl::StrContains(output, munge.data.substr(0, 24)));
  CHECK_FALSE(absl::StrContains(output, jwt.data.substr(0, 24)));

  // A new leader reads the Secrets its predecessor made and keeps them as they are.
  f.controller.reset();
  f.controller = std::make_unique<Service>(f.StartController(absl::Seconds(1)));
  AwaitReady(*f.controller);
  RequireOk(f.client
                ->MergePatch(api::SlurmClusters(), kNamespace, "loop",
                             R"({"metadata":{"annotations":{"touch":"1"}}})")
                .status());
  absl::SleepFor(absl::Seconds(3));
  CHECK(CheckGeneratedSecret(*f.client, "loop-munge-key", "munge-key", "munge.key", 1024, uid)
            .resource_version == munge.resource_version);
  CHECK(CheckGeneratedSecret(*f.client, "loop-jwt-key", "jwt-key", "jwt_hs256.key", 64, uid).data ==
        jwt.data);
  CHECK(Count(f.controller->process.Output(), "auth_secret_created") == 0);
  CHECK(absl::StartsWith(f.ClusterCondition("Ready"), "True/ConfigApplied"));

  // A user's Secret that does not exist: Ready says which and what it needs.
  RequireOk(f.client
                ->MergePatch(api::SlurmClusters(), kNamespace, "loop",
                             R"({"spec":{"auth":{"mungeKeySecret":"site-munge"}}})")
                .status());
  f.RequireCondition("Ready", "False/AuthSecretInvalid/");
  const std::string ready = f.ClusterCondition("Ready");
  CHECK(absl::StrContains(ready, R"(Secret "site-munge")"));
  CHECK(absl::StrContains(ready, "munge.key"));
  // The generated JWT Secret, still in use, is as it was.
  CHECK(Field(*f.client, k8s::Secrets(), "loop-jwt-key", Path({"metadata", "resourceVersion"})) ==
        jwt.resource_version);

  // Once it exists Ready recovers by itself: Secrets are not watched, but a cluster waiting
  // on one looks again every 30 s.
  RequireOk(f.client
                ->Create(k8s::Secrets(), kNamespace,
                         absl::StrCat(R"({"apiVersion":"v1","kind":"Secret",
                         "metadata":{"name":"site-munge"},"data":{"munge.key":")",
                                      absl::Base64Escape(std::string(64, 'k')), R"("}})"))
                .status());
  CHECK(Eventually(
            [&] { return absl::StartsWith(f.ClusterCondition("Ready"), "True/ConfigApplied"); },
            absl::Seconds(45))
            .has_value());
  // Never made ours.
  absl::StatusOr<std::string> site = f.client->Get(k8s::Secrets(), kNamespace, "site-munge");
  RequireOk(site.status());
  CHECK_FALSE(absl::StrContains(*site, "ownerReferences"));
}

}  // namespace
}  // namespace tidepool::testing

// slurm-syncer's two-way sync against a real API server and a real Slurm: Kubernetes
// causes (cordon, pod not ready, Node condition) drain the pod's Slurm node with k8s:
// reasons and undrain it when they clear; a person's drain in Slurm is left alone and
// shows on the Node and pod; while slurmrestd is down nothing changes on either side but
// for the readiness gates of drained idle pods, held True.
// The test plays kubelet: it creates Nodes and slurmd pods bound to them for the
// environment's Slurm nodes n-01 and n-02, and sets their Ready condition itself.
#include <catch2/catch_test_macros.hpp>
#include <functional>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "k8s/client.h"
#include "k8s/config.h"
#include "k8s/object_json.h"
#include "k8s/resource.h"
#include "support/eventually.h"
#include "support/exposition.h"
#include "support/kube_conditions.h"
#include "support/kube_namespace.h"
#include "support/testenv.h"
#include "syncer_process.h"
#include "tidepool/resource_types.h"

namespace tidepool::testing {
namespace {

constexpr char kNamespace[] = "tidepool-two-way";
constexpr char kTestKubelet[] = "test-kubelet";
constexpr char kNodeSet[] = "two-way";

KubernetesEnv RequireKubernetes() {
  absl::StatusOr<KubernetesEnv> env = Kubernetes();
  INFO(env.status().ToString());
  REQUIRE(env.ok());
  return *std::move(env);
}

std::unique_ptr<k8s::Client> RequireClient(const KubernetesEnv& env) {
  absl::StatusOr<k8s::ClientConfig> config = k8s::LoadKubeconfig(env.kubeconfig);
  REQUIRE(config.ok());
  return std::make_unique<k8s::Client>(*std::move(config));
}

std::optional<absl::Duration> Eventually(const std::function<bool()>& check,
                                         absl::Duration timeout = absl::Seconds(20)) {
  return PollUntil(check, timeout, absl::Milliseconds(50));
}

std::string KubeNodeFor(const std::string& slurm_node) { return "two-way-" + slurm_node; }

// The value of an unlabelled series on the syncer's /metrics; "" when not served.
std::string MetricValue(Syncer& syncer, absl::string_view series) {
  absl::StatusOr<HttpResponse> metrics = syncer.Get("/metrics");
  return metrics.ok() ? SampleValue(metrics->body, series) : "";
}

void RequireOk(const absl::Status& status) {
  INFO(status.ToString());
  REQUIRE(status.ok());
}

// The test as kubelet: pod Ready condition by server-side apply, as its own manager.
void SetPodReady(k8s::Client& client, const std::string& pod, bool ready) {
  const std::string body = absl::StrCat(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")", pod, R"(","namespace":")",
      kNamespace, R"("},"status":{"phase":"Running","conditions":[{"type":"Ready","status":")",
      ready ? "True" : "False", R"("}]}})");
  RequireOk(client
                .Apply(k8s::Pods(), kNamespace, pod, body,
                       {.field_manager = kTestKubelet, .force = true}, "status")
                .status());
}

// The NodeSet the test's slurmd pods belong to (no nodeset-controller runs): its uid.
std::string RequireNodeSet(k8s::Client& client) {
  (void)client.Delete(api::NodeSets(), kNamespace, kNodeSet, {.grace_period_seconds = 0});
  absl::StatusOr<std::string> created = client.Create(
      api::NodeSets(), kNamespace,
      absl::StrCat(R"({"apiVersion":"tidepool.dev/v1alpha1","kind":"NodeSet","metadata":{"name":")",
                   kNodeSet, R"("},"spec":{"clusterRef":{"name":"two-way"},"replicas":0}})"));
  RequireOk(created.status());
  absl::StatusOr<k8s::ObjectMeta> meta = k8s::ParseObjectMeta(*created);
  RequireOk(meta.status());
  return meta->uid;
}

// A slurmd pod for `slurm_node` on `node`, controlled by the NodeSet `owner_uid` (none: "").
void CreatePod(k8s::Client& client, const std::string& name, const std::string& slurm_node,
               const std::string& node, const std::string& owner_uid) {
  const std::string owner =
      owner_uid.empty()
          ? ""
          : absl::StrCat(R"(,"ownerReferences":[{"apiVersion":"tidepool.dev/v1alpha1",)",
                         R"("kind":"NodeSet","name":")", kNodeSet, R"(","uid":")", owner_uid,
                         R"(","controller":true}])");
  RequireOk(client
                .Create(k8s::Pods(), kNamespace,
                        absl::StrCat(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")",
                                     name, R"(","labels":{"tidepool.dev/component":"slurmd",
                      "tidepool.dev/slurm-node":")",
                                     slurm_node, R"("})", owner, R"(},"spec":{"nodeName":")", node,
                                     R"(","containers":[{"name":"slurmd","image":"slurmd"}]}})"))
                .status());
  SetPodReady(client, name, true);
}

void CreateNode(k8s::Client& client, const std::string& node) {
  (void)client.Delete(k8s::Nodes(), "", node, {.grace_period_seconds = 0});
  RequireOk(client
                .Create(k8s::Nodes(), "",
                        absl::StrCat(R"({"apiVersion":"v1","kind":"Node",
      "metadata":{"name":")",
                                     node, R"("}})"))
                .status());
}

void CreateNodeAndPod(k8s::Client& client, const std::string& slurm_node,
                      const std::string& owner_uid) {
  CreateNode(client, KubeNodeFor(slurm_node));
  CreatePod(client, slurm_node, slurm_node, KubeNodeFor(slurm_node), owner_uid);
}

void DeleteNodeAndPod(k8s::Client& client, const std::string& slurm_node) {
  (void)client.Delete(k8s::Pods(), kNamespace, slurm_node, {.grace_period_seconds = 0});
  (void)client.Delete(k8s::Nodes(), "", KubeNodeFor(slurm_node), {.grace_period_seconds = 0});
}

// A field of an object read fresh from the server.
std::string ReadField(k8s::Client& client, const k8s::ResourceType& type, const std::string& ns,
                      const std::string& name,
                      const std::function<std::string(const rapidjson::Value&)>& field) {
  absl::StatusOr<std::string> json = client.Get(type, ns, name);
  if (!json.ok()) return "";
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(*json, name);
  return doc.ok() ? field(*doc) : "";
}

auto Annotation(const std::string& key) {
  return [key](const rapidjson::Value& object) {
    const rapidjson::Value* metadata = k8s::FindMember(object, "metadata");
    const rapidjson::Value* annotations =
        metadata != nullptr ? k8s::FindMember(*metadata, "annotations") : nullptr;
    return annotations != nullptr ? k8s::StringMember(*annotations, key.c_str()) : "";
  };
}

struct TwoWayFixture {
  TwoWayFixture() : slurm(RequireSlurm()), kube(RequireKubernetes()), client(RequireClient(kube)) {
    for (const std::string node : {"n-01", "n-02"}) {
      ResetSlurmNode(slurm, node);
    }
    RequireOk(EnsurePodNamespace(*client, kNamespace));
    InstallCrds();
    node_set_uid = RequireNodeSet(*client);
    for (const std::string node : {"n-01", "n-02"}) {
      DeleteNodeAndPod(*client, node);
      CreateNodeAndPod(*client, node, node_set_uid);
    }
    std::vector<std::string> args = Syncer::JwtArgs(slurm);
    for (std::string flag :
         {std::string("--sync_kubernetes=true"), "--kubeconfig=" + kube.kubeconfig,
          absl::StrCat("--pod_namespace=", kNamespace),
          absl::StrCat("--leader_election_namespace=", kNamespace),
          std::string("--drain_node_conditions=GPUUnhealthy")}) {
      args.push_back(flag);
    }
    syncer = std::make_unique<Syncer>(args);
    syncer->AwaitReady(absl::Seconds(30));
  }
  ~TwoWayFixture() {
    syncer.reset();
    for (const std::string node : {"n-01", "n-02"}) {
      DeleteNodeAndPod(*client, node);
      ResetSlurmNode(slurm, node);
    }
  }

  // The syncer follows NodeSets to know which pods are the cluster's.
  void InstallCrds() {
    absl::StatusOr<CommandResult> applied =
        Kubectl(kube, {"apply", "-f", SourceRoot() + "/manifests/crds"});
    REQUIRE(applied.ok());
    INFO(applied->output);
    REQUIRE(applied->exit_code == 0);
    absl::StatusOr<CommandResult> established = Kubectl(
        kube,
        {"wait", "--for=condition=Established", "--timeout=60s", "crd", "nodesets.tidepool.dev"});
    REQUIRE(established.ok());
    REQUIRE(established->exit_code == 0);
  }

  std::string SlurmReason(const std::string& node) {
    const v1::SlurmNode n = RequireNode(*syncer, node);
    return n.drain() ? n.reason() : "";
  }
  bool SlurmReasonIs(const std::string& node, const std::string& reason) {
    return SlurmReason(node) == reason;
  }
  void PatchNode(const std::string& slurm_node, const std::string& patch) {
    RequireOk(client->MergePatch(k8s::Nodes(), "", KubeNodeFor(slurm_node), patch).status());
  }

  SlurmEnv slurm;
  KubernetesEnv kube;
  std::unique_ptr<k8s::Client> client;
  std::string node_set_uid;
  std::unique_ptr<Syncer> syncer;
};

TEST_CASE("a cordon drains the Slurm node with its reason, and an uncordon undrains it") {
  TwoWayFixture f;
  // The Slurm side reaches the pod first: its state annotation and condition.
  CHECK(Eventually([&] {
          return ReadField(*f.client, k8s::Pods(), kNamespace, "n-01",
                           Annotation("tidepool.dev/slurm-state")) == "IDLE";
        }).has_value());
  // The condition is written right after the annotation, by the same sync.
  CHECK(Eventually([&] {
          return absl::StartsWith(ReadField(*f.client, k8s::Pods(), kNamespace, "n-01",
                                            Condition("tidepool.dev/SlurmNodeReady")),
                                  "True/Idle");
        }).has_value());

  f.PatchNode("n-01",
              R"({"metadata":{"annotations":{"tidepool.dev/cordon-reason":"kernel upgrade"}},
                         "spec":{"unschedulable":true}})");
  auto took = Eventually([&] { return f.SlurmReasonIs("n-01", "k8s: cordon: kernel upgrade"); });
  REQUIRE(took.has_value());
  WARN("cordon → Slurm DRAIN: " << absl::FormatDuration(*took));
  CHECK(Eventually([&] {
          return absl::StartsWith(
              ReadField(*f.client, k8s::Nodes(), "", KubeNodeFor("n-01"), Condition("SlurmDrain")),
              "True/Drained/k8s: cordon: kernel upgrade");
        }).has_value());
  CHECK(ReadField(*f.client, k8s::Nodes(), "", KubeNodeFor("n-01"), Condition("SlurmCordon"))
            .starts_with("False/"));
  // The annotation comes after the conditions (the same sync, a write later).
  CHECK(Eventually([&] {
          return ReadField(*f.client, k8s::Nodes(), "", KubeNodeFor("n-01"),
                           Annotation("tidepool.dev/drain")) == "k8s: cordon: kernel upgrade";
        }).has_value());
  CHECK(f.SlurmReason("n-02").empty());  // the other node is untouched
  // Drained and idle: the readiness gate lets an eviction through.
  CHECK(Eventually([&] {
          return absl::StartsWith(ReadField(*f.client, k8s::Pods(), kNamespace, "n-01",
                                            Condition("tidepool.dev/SlurmNodeInUse")),
                                  "False/DrainedIdle");
        }).has_value());
  CHECK(absl::StartsWith(ReadField(*f.client, k8s::Pods(), kNamespace, "n-02",
                                   Condition("tidepool.dev/SlurmNodeInUse")),
                         "True/AcceptingJobs"));

  f.PatchNode("n-01", R"({"spec":{"unschedulable":false}})");
  REQUIRE(Eventually([&] { return f.SlurmReason("n-01").empty(); }).has_value());
  CHECK(RequireNode(*f.syncer, "n-01").idle());
  CHECK(Eventually([&] {
          return absl::StartsWith(ReadField(*f.client, k8s::Pods(), kNamespace, "n-01",
                                            Condition("tidepool.dev/SlurmNodeInUse")),
                                  "True/AcceptingJobs");
        }).has_value());
  CHECK(Eventually([&] {
          return ReadField(*f.client, k8s::Nodes(), "", KubeNodeFor("n-01"),
                           Annotation("tidepool.dev/drain")) == "" &&
                 ReadField(*f.client, k8s::Nodes(), "", KubeNodeFor("n-01"),
                           Condition("SlurmDrain"))
                     .starts_with("False/");
        }).has_value());
}

TEST_CASE("a pod not ready drains; the drain is re-applied if cleared and lifted when ready") {
  TwoWayFixture f;
  SetPodReady(*f.client, "n-02", false);
  REQUIRE(Eventually([&] { return f.SlurmReasonIs("n-02", "k8s: pod not ready"); }).has_value());
  RequireExec(f.slurm, {"scontrol", "update", "nodename=n-02", "state=resume"});
  CHECK(Eventually([&] { return f.SlurmReasonIs("n-02", "k8s: pod not ready"); }).has_value());
  SetPodReady(*f.client, "n-02", true);
  CHECK(Eventually([&] { return f.SlurmReason("n-02").empty(); }).has_value());

  SECTION("a configured Node condition drains too") {
    RequireOk(f.client
                  ->Apply(k8s::Nodes(), "", KubeNodeFor("n-02"),
                          absl::StrCat(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")",
                                       KubeNodeFor("n-02"),
                                       R"("},"status":{"conditions":[{"type":"GPUUnhealthy",
                                       "status":"True","reason":"XidError"}]}})"),
                          {.field_manager = kTestKubelet, .force = true}, "status")
                  .status());
    CHECK(Eventually([&] {
            return f.SlurmReasonIs("n-02", "k8s: node condition GPUUnhealthy");
          }).has_value());
  }
}

TEST_CASE("a pod no NodeSet of the cluster controls changes nothing, whatever its labels") {
  TwoWayFixture f;
  // n-03 has no pod of the NodeSet here; a look-alike with its labels, not ready, sits on a
  // cordoned Node.
  REQUIRE(f.slurm.node_names.size() >= 3);
  const std::string slurm_node = f.slurm.node_names.at(2);
  ResetSlurmNode(f.slurm, slurm_node);
  (void)f.client->Delete(k8s::Pods(), kNamespace, "impostor", {.grace_period_seconds = 0});
  CreateNode(*f.client, "two-way-impostor");
  f.client->MergePatch(k8s::Nodes(), "", "two-way-impostor", R"({"spec":{"unschedulable":true}})")
      .status()
      .IgnoreError();
  CreatePod(*f.client, "impostor", slurm_node, "two-way-impostor", "");
  SetPodReady(*f.client, "impostor", false);
  // The syncer is at work (a cordon of n-01's Node drains n-01) ...
  f.PatchNode("n-01", R"({"spec":{"unschedulable":true}})");
  REQUIRE(Eventually([&] { return f.SlurmReasonIs("n-01", "k8s: cordon: cordoned"); }).has_value());
  absl::SleepFor(absl::Seconds(3));
  // ... and leaves the node and the look-alike alone: no drain, no Slurm state written on it.
  CHECK(f.SlurmReason(slurm_node).empty());
  CHECK(ReadField(*f.client, k8s::Pods(), kNamespace, "impostor",
                  Annotation("tidepool.dev/slurm-state")) == "");
  (void)f.client->Delete(k8s::Pods(), kNamespace, "impostor", {.grace_period_seconds = 0});
  (void)f.client->Delete(k8s::Nodes(), "", "two-way-impostor", {.grace_period_seconds = 0});
  ResetSlurmNode(f.slurm, slurm_node);
}

TEST_CASE("a person's drain in Slurm survives Kubernetes causes and shows on the Node") {
  TwoWayFixture f;
  RequireExec(f.slurm, {"scontrol", "update", "nodename=n-01", "state=drain",
                        "reason=bad DIMM, ticket 4711"});
  CHECK(Eventually([&] {
          return absl::StrContains(
              ReadField(*f.client, k8s::Nodes(), "", KubeNodeFor("n-01"), Condition("SlurmCordon")),
              "True/DrainedInSlurm/bad DIMM, ticket 4711");
        }).has_value());
  // Timed from the poll that saw it to the write of its conditions, once.
  constexpr char kTimed[] = "tidepool_slurm_syncer_outside_drain_to_k8s_seconds_count";
  CHECK(Eventually([&] { return MetricValue(*f.syncer, kTimed) == "1"; }).has_value());
  CHECK(Eventually([&] {
          return ReadField(*f.client, k8s::Pods(), kNamespace, "n-01",
                           Annotation("tidepool.dev/slurm-reason")) == "bad DIMM, ticket 4711";
        }).has_value());
  // A Kubernetes cause comes and goes: the person's reason stays.
  SetPodReady(*f.client, "n-01", false);
  absl::SleepFor(absl::Seconds(3));
  CHECK(f.SlurmReasonIs("n-01", "bad DIMM, ticket 4711"));
  SetPodReady(*f.client, "n-01", true);
  absl::SleepFor(absl::Seconds(3));
  CHECK(f.SlurmReasonIs("n-01", "bad DIMM, ticket 4711"));
  RequireExec(f.slurm, {"scontrol", "update", "nodename=n-01", "state=resume"});
  CHECK(Eventually([&] {
          return ReadField(*f.client, k8s::Nodes(), "", KubeNodeFor("n-01"),
                           Condition("SlurmCordon"))
              .starts_with("False/");
        }).has_value());
  CHECK(Eventually([&] { return MetricValue(*f.syncer, kTimed) == "2"; }).has_value());
}

TEST_CASE("while slurmrestd is down the syncer changes nothing on either side") {
  TwoWayFixture f;
  REQUIRE(Eventually([&] {
            return ReadField(*f.client, k8s::Nodes(), "", KubeNodeFor("n-01"),
                             Condition("SlurmDrain"))
                .starts_with("False/");
          }).has_value());
  {
    SlurmRestOutage outage(f.slurm);
    // Changes start once the syncer knows Slurm is out of sight (readiness says so).
    REQUIRE(Eventually([&] {
              absl::StatusOr<HttpResponse> ready = f.syncer->Get("/readyz");
              return ready.ok() && ready->status == 503;
            }).has_value());
    const auto n02_drain = [&] {
      return ReadField(*f.client, k8s::Nodes(), "", KubeNodeFor("n-02"), Condition("SlurmDrain"));
    };
    const std::string n02_before = n02_drain();
    const size_t log_mark = f.syncer->Output().size();
    f.PatchNode("n-01", R"({"spec":{"unschedulable":true}})");
    RequireExec(f.slurm, {"scontrol", "update", "nodename=n-02", "state=drain",
                          "reason=drained while REST was down"});
    absl::SleepFor(absl::Seconds(4));
    // No drain was even tried (a try fails without slurmrestd and is logged) ...
    const std::string log = f.syncer->Output().substr(log_mark);
    INFO(log);
    CHECK_FALSE(absl::StrContains(log, "event=sync_failed"));
    CHECK_FALSE(absl::StrContains(log, "event=node_updated"));
    // ... and nothing was written on the Kubernetes side.
    CHECK(n02_drain() == n02_before);
  }
  CHECK(Eventually([&] { return f.SlurmReasonIs("n-01", "k8s: cordon: cordoned"); },
                   absl::Seconds(30))
            .has_value());
  CHECK(Eventually(
            [&] {
              return ReadField(*f.client, k8s::Nodes(), "", KubeNodeFor("n-02"),
                               Condition("SlurmCordon"))
                  .starts_with("True/");
            },
            absl::Seconds(30))
            .has_value());
}

TEST_CASE("a drained idle pod's gate is held True while Slurm is out of sight") {
  TwoWayFixture f;
  const auto gate = [&](const std::string& pod) {
    return ReadField(*f.client, k8s::Pods(), kNamespace, pod,
                     Condition("tidepool.dev/SlurmNodeInUse"));
  };
  f.PatchNode("n-01", R"({"spec":{"unschedulable":true}})");
  REQUIRE(
      Eventually([&] { return absl::StartsWith(gate("n-01"), "False/DrainedIdle"); }).has_value());
  REQUIRE(
      Eventually([&] { return absl::StartsWith(gate("n-02"), "True/AcceptingJobs"); }).has_value());
  {
    SlurmRestOutage outage(f.slurm);
    const absl::Time down = absl::Now();
    // A person could resume n-01 now and Slurm start jobs there: after the grace (10 s from
    // when the syncer saw the outage) its pod is no longer evictable.
    const bool held =
        Eventually([&] { return absl::StartsWith(gate("n-01"), "True/SlurmUnreachable"); },
                   absl::Seconds(40))
            .has_value();
    INFO(f.syncer->Output());
    REQUIRE(held);
    CHECK(absl::Now() - down >= absl::Seconds(10));
    CHECK(absl::StartsWith(gate("n-02"), "True/AcceptingJobs"));  // a True gate stays as it is
    CHECK(absl::StrContains(f.syncer->Output(), "event=slurm_out_of_sight_gates_held"));
    // Counted once the write has returned to the syncer, which may be a moment after the
    // API server shows it (and again should a look come before the pod cache has the
    // write). Then the count stops: a held gate is not written again at every look.
    const auto held_count = [&] {
      return MetricValue(*f.syncer, "tidepool_slurm_syncer_gates_held_total");
    };
    CHECK(
        Eventually([&] { return !held_count().empty() && held_count() != "0"; }, absl::Seconds(10))
            .has_value());
    absl::SleepFor(absl::Seconds(4));  // two looks: the cache has the write by now
    const std::string settled = held_count();
    absl::SleepFor(absl::Seconds(4));
    CHECK(held_count() == settled);
    CHECK((settled == "1" || settled == "2"));
  }
  // Slurm in sight again: the hold lets go at its next look (every 2 s) and the two-way
  // sync writes what Slurm says (n-01 is still cordoned, drained and idle), which stays.
  CHECK(Eventually(
            [&] {
              return absl::StrContains(f.syncer->Output(), "event=slurm_in_sight_gates_released");
            },
            absl::Seconds(30))
            .has_value());
  CHECK(Eventually([&] { return absl::StartsWith(gate("n-01"), "False/DrainedIdle"); },
                   absl::Seconds(30))
            .has_value());
  absl::SleepFor(absl::Seconds(5));
  CHECK(absl::StartsWith(gate("n-01"), "False/DrainedIdle"));
}

}  // namespace
}  // namespace tidepool::testing

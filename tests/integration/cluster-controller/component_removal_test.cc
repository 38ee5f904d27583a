// cluster-controller with a control plane of pods against a real API server (no kubelet,
// no kube-controller-manager: the objects it applies exist, nothing runs them): a
// component the spec stops asking for is removed, what keeps its data stays, and an
// object of the same name the cluster does not control is never touched.
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
#include "absl/time/clock.h"
#include "k8s/client.h"
#include "k8s/config.h"
#include "k8s/object_json.h"
#include "k8s/resource.h"
#include "support/child_process.h"
#include "support/eventually.h"
#include "support/http_get.h"
#include "support/kube_namespace.h"
#include "support/ports.h"
#include "support/testenv.h"
#include "tidepool/resource_types.h"

namespace tidepool::testing {
namespace {

constexpr char kNamespace[] = "tidepool-component-removal";
constexpr char kCluster[] = "removal";
// A SlurmCluster of the same namespace that another release serves.
constexpr char kOtherCluster[] = "elsewhere";

void RequireOk(const absl::Status& status) {
  INFO(status.ToString());
  REQUIRE(status.ok());
}

std::optional<absl::Duration> Eventually(const std::function<bool()>& check) {
  return PollUntil(check, absl::Seconds(30), absl::Milliseconds(50));
}

std::string BinaryFromEnv(const char* variable) {
  const char* path = std::getenv(variable);
  REQUIRE(path != nullptr);
  return path;
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

std::string Name(const char* suffix) { return absl::StrCat(kCluster, suffix); }

// The types the controller makes objects of for a cluster, all labelled with it.
const std::vector<const k8s::ResourceType*>& ClusterTypes() {
  static const std::vector<const k8s::ResourceType*> types = {
      &k8s::Deployments(), &k8s::StatefulSets(),           &k8s::Services(),
      &k8s::Secrets(),     &k8s::PersistentVolumeClaims(), &k8s::PodDisruptionBudgets(),
      &k8s::ConfigMaps()};
  return types;
}

struct Fixture {
  Fixture() : kube(Kubernetes().value()) {
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
    controller = std::make_unique<Service>(
        Start("TIDEPOOL_CLUSTER_CONTROLLER",
              {"--kubeconfig=" + kube.kubeconfig,
               absl::StrCat("--renderer_address=127.0.0.1:", renderer->grpc_port),
               // No Slurm runs here: the config step, last, cannot reconfigure; the component
               // steps before it are what this test is about.
               absl::StrCat("--syncer_address=127.0.0.1:", FreeLoopbackPort().value()),
               absl::StrCat("--slurm_cluster=", kNamespace, "/", kCluster), "--leader_elect=false",
               "--log_level=debug", "--control_plane=pods"}));
    AwaitReady(*renderer);
    AwaitReady(*controller);
  }
  ~Fixture() {
    controller.reset();
    Cleanup();
  }
  // No garbage collector runs here: everything labelled with the cluster goes by hand, and
  // the cluster's teardown finalizer is dropped (its teardown waits for pods that a
  // foreground deletion without a garbage collector never lets go).
  void Cleanup() {
    (void)client->Delete(k8s::Secrets(), kNamespace, Name("-ssh-keys"));
    for (const char* cluster : {kCluster, kOtherCluster}) Cleanup(cluster);
  }
  void Cleanup(const char* cluster) {
    (void)client->MergePatch(api::SlurmClusters(), kNamespace, cluster,
                             R"({"metadata":{"finalizers":null}})");
    (void)client->Delete(api::SlurmClusters(), kNamespace, cluster);
    for (const k8s::ResourceType* type : ClusterTypes()) {
      for (const std::string& item : Labelled(*type, cluster)) {
        absl::StatusOr<k8s::ObjectMeta> meta = k8s::ParseObjectMeta(item);
        if (!meta.ok()) continue;
        // Claims carry kubernetes.io/pvc-protection, which only the controller-manager lifts.
        (void)client->MergePatch(*type, kNamespace, meta->name,
                                 R"({"metadata":{"finalizers":null}})");
        (void)client->Delete(*type, kNamespace, meta->name);
      }
    }
  }
  // The objects of `type` labelled with `cluster`.
  std::vector<std::string> Labelled(const k8s::ResourceType& type, const char* cluster) {
    absl::StatusOr<k8s::ListResult> listed = client->ListAll(
        type, kNamespace, {.label_selector = absl::StrCat("tidepool.dev/cluster=", cluster)});
    return listed.ok() ? listed->items : std::vector<std::string>{};
  }
  bool Exists(const k8s::ResourceType& type, const std::string& name) {
    return client->Get(type, kNamespace, name).ok();
  }
  std::string Uid(const k8s::ResourceType& type, const std::string& name) {
    absl::StatusOr<std::string> json = client->Get(type, kNamespace, name);
    if (!json.ok()) return "";
    absl::StatusOr<k8s::ObjectMeta> meta = k8s::ParseObjectMeta(*json);
    return meta.ok() ? meta->uid : "";
  }
  // The SlurmCluster with the images every component needs and `spec` (JSON members).
  void CreateCluster(const std::string& spec, const char* name = kCluster) {
    RequireOk(
        client
            ->Create(api::SlurmClusters(), kNamespace,
                     absl::StrCat(R"({"apiVersion":"tidepool.dev/v1alpha1","kind":"SlurmCluster",
              "metadata":{"name":")",
                                  name, R"("},"spec":{"clusterName":")", name, R"(",
              "images":{"controller":"slurmctld","compute":"slurmd","restApi":"slurmrestd",
                        "accounting":"slurmdbd","accountingDatabase":"mariadb","login":"login"},
              "partitions":[{"name":"cpu","nodeSets":["cpu"],"default":true}],)",
                                  spec, "}}"))
            .status());
  }
  int Logged(const std::string& event) {
    const std::string output = controller->process.Output();
    const std::string what = absl::StrCat("event=", event, " ");
    int n = 0;
    for (size_t at = output.find(what); at != std::string::npos; at = output.find(what, at + 1)) {
      ++n;
    }
    return n;
  }
  // ComponentRemoved events about the cluster `uid` (earlier runs' stay in the namespace).
  int RemovedEvents(const std::string& uid) {
    absl::StatusOr<k8s::ListResult> events = client->ListAll(k8s::EventsV1(), kNamespace, {});
    if (!events.ok()) return 0;
    int n = 0;
    for (const std::string& event : events->items) {
      if (absl::StrContains(event, R"("reason":"ComponentRemoved")") &&
          absl::StrContains(event, uid)) {
        ++n;
      }
    }
    return n;
  }
  // <cluster>-ssh-keys with one login user, alice.
  void CreateSshKeysSecret() {
    RequireOk(
        client
            ->Create(k8s::Secrets(), kNamespace,
                     absl::StrCat(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":")",
                                  Name("-ssh-keys"), R"("},"data":{"alice":")",
                                  absl::Base64Escape("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 alice"),
                                  R"("}})"))
            .status());
  }
  void SetAccounting(bool enabled) {
    RequireOk(client
                  ->MergePatch(api::SlurmClusters(), kNamespace, kCluster,
                               absl::StrCat(R"({"spec":{"accounting":{"enabled":)",
                                            enabled ? "true" : "false", "}}}"))
                  .status());
  }

  KubernetesEnv kube;
  std::unique_ptr<k8s::Client> client;
  std::unique_ptr<Service> renderer, controller;
};

TEST_CASE("a SlurmCluster another release serves is left alone") {
  Fixture f;
  // Made first, so an unfiltered controller would be at it before the served one.
  f.CreateCluster(R"("accounting":{"enabled":false})", kOtherCluster);
  f.CreateCluster(R"("accounting":{"enabled":false})");
  const bool served =
      Eventually([&] { return f.Exists(k8s::StatefulSets(), Name("-controller")); }).has_value();
  INFO(f.controller->process.Output());
  REQUIRE(served);
  absl::SleepFor(absl::Seconds(2));  // the served cluster's further syncs, and any resync
  absl::StatusOr<std::string> other =
      f.client->Get(api::SlurmClusters(), kNamespace, kOtherCluster);
  REQUIRE(other.ok());
  CHECK_FALSE(absl::StrContains(*other, "finalizers"));
  CHECK_FALSE(absl::StrContains(*other, R"("status")"));
  for (const k8s::ResourceType* type : ClusterTypes()) {
    CAPTURE(type->resource);
    CHECK(f.Labelled(*type, kOtherCluster).empty());
  }
  CHECK_FALSE(absl::StrContains(f.controller->process.Output(), kOtherCluster));
}

TEST_CASE("accounting disabled: slurmdbd and the managed database go, their data stays") {
  Fixture f;
  // Someone's Deployment under the login pods' name, labelled like the cluster's own (so
  // the controller's cache holds it) but not controlled by the cluster: the login step,
  // never wanted here, must leave it.
  RequireOk(f.client
                ->Create(k8s::Deployments(), kNamespace,
                         absl::StrCat(R"({"apiVersion":"apps/v1","kind":"Deployment",
              "metadata":{"name":")",
                                      Name("-login"), R"(","labels":{"tidepool.dev/cluster":")",
                                      kCluster, R"("}},
              "spec":{"selector":{"matchLabels":{"app":"x"}},"template":{
              "metadata":{"labels":{"app":"x"}},
              "spec":{"containers":[{"name":"x","image":"x"}]}}}})"))
                .status());
  f.CreateCluster(R"("accounting":{"enabled":true,"managed":{"size":"1Gi"}})");
  const std::string cluster_uid = f.Uid(api::SlurmClusters(), kCluster);
  REQUIRE_FALSE(cluster_uid.empty());
  const std::string slurmdbd = Name("-accounting");
  const std::string database = Name("-accounting-db");
  const std::string credentials = Name("-accounting-db-credentials");
  const bool applied =
      Eventually([&] {
        return f.Exists(k8s::Deployments(), slurmdbd) && f.Exists(k8s::StatefulSets(), database);
      }).has_value();
  INFO(f.controller->process.Output());
  REQUIRE(applied);
  CHECK(f.Exists(k8s::Services(), slurmdbd));
  CHECK(f.Exists(k8s::Services(), database));
  const std::string secret_uid = f.Uid(k8s::Secrets(), credentials);
  REQUIRE_FALSE(secret_uid.empty());
  // The claim the StatefulSet controller would make from the volumeClaimTemplate (none
  // runs here), labelled as the template labels it.
  const std::string data_claim = absl::StrCat("data-", database, "-0");
  RequireOk(f.client
                ->Create(k8s::PersistentVolumeClaims(), kNamespace,
                         absl::StrCat(R"({"apiVersion":"v1","kind":"PersistentVolumeClaim",
              "metadata":{"name":")",
                                      data_claim, R"(","labels":{"tidepool.dev/cluster":")",
                                      kCluster, R"("}},
              "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}})"))
                .status());
  const std::string controller_uid = f.Uid(k8s::StatefulSets(), Name("-controller"));
  REQUIRE_FALSE(controller_uid.empty());

  f.SetAccounting(false);
  const bool removed =
      Eventually([&] {
        return !f.Exists(k8s::Deployments(), slurmdbd) && !f.Exists(k8s::Services(), slurmdbd) &&
               !f.Exists(k8s::StatefulSets(), database) && !f.Exists(k8s::Services(), database);
      }).has_value();
  INFO(f.controller->process.Output());
  REQUIRE(removed);
  // What keeps the data, and what the spec still asks for, stay as they were.
  CHECK(f.Uid(k8s::Secrets(), credentials) == secret_uid);
  CHECK(f.Exists(k8s::PersistentVolumeClaims(), data_claim));
  CHECK(f.Exists(k8s::PersistentVolumeClaims(), Name("-controller-state")));
  CHECK(f.Uid(k8s::StatefulSets(), Name("-controller")) == controller_uid);
  CHECK(f.Exists(k8s::Deployments(), Name("-login")));
  // One for slurmdbd, one for the database (events are written apart from the sync).
  CHECK(Eventually([&] { return f.RemovedEvents(cluster_uid) == 2; }).has_value());

  // Enabled again: the same credentials Secret opens the kept data.
  f.SetAccounting(true);
  const bool back =
      Eventually([&] {
        return f.Exists(k8s::Deployments(), slurmdbd) && f.Exists(k8s::StatefulSets(), database);
      }).has_value();
  INFO(f.controller->process.Output());
  REQUIRE(back);
  CHECK(f.Uid(k8s::Secrets(), credentials) == secret_uid);
  CHECK(f.Exists(k8s::Deployments(), Name("-login")));
  // Every generated Secret was made once, the first time.
  CHECK(f.Logged("accounting_credentials_created") == 1);
  CHECK(f.Logged("auth_secret_created") == 2);
  CHECK(f.RemovedEvents(cluster_uid) == 2);  // told once, whatever the syncs since
}

TEST_CASE("login pods gone from the spec: their Deployment and Service go, the host key stays") {
  Fixture f;
  f.CreateSshKeysSecret();
  f.CreateCluster(
      absl::StrCat(R"("login":{"replicas":1,"sshKeysSecret":")", Name("-ssh-keys"), R"("})"));
  const std::string cluster_uid = f.Uid(api::SlurmClusters(), kCluster);
  REQUIRE_FALSE(cluster_uid.empty());
  const std::string login = Name("-login");
  const bool applied =
      Eventually([&] {
        return f.Exists(k8s::Deployments(), login) && f.Exists(k8s::Services(), login);
      }).has_value();
  INFO(f.controller->process.Output());
  REQUIRE(applied);
  const std::string host_key_uid = f.Uid(k8s::Secrets(), Name("-login-host-keys"));
  REQUIRE_FALSE(host_key_uid.empty());
  REQUIRE(f.Exists(k8s::ConfigMaps(), Name("-users")));

  RequireOk(
      f.client->MergePatch(api::SlurmClusters(), kNamespace, kCluster, R"({"spec":{"login":null}})")
          .status());
  const bool removed =
      Eventually([&] {
        return !f.Exists(k8s::Deployments(), login) && !f.Exists(k8s::Services(), login);
      }).has_value();
  INFO(f.controller->process.Output());
  REQUIRE(removed);
  // The key users' known_hosts trust, and the accounts slurmctld resolves, stay.
  CHECK(f.Uid(k8s::Secrets(), Name("-login-host-keys")) == host_key_uid);
  CHECK(f.Exists(k8s::ConfigMaps(), Name("-users")));
  CHECK(f.Exists(k8s::StatefulSets(), Name("-controller")));
  CHECK(Eventually([&] { return f.RemovedEvents(cluster_uid) == 1; }).has_value());
  CHECK(f.Logged("login_host_key_created") == 1);
  absl::SleepFor(absl::Seconds(2));  // more syncs (the login step rechecks) tell nothing new
  CHECK(f.RemovedEvents(cluster_uid) == 1);
}

// "<reason>: <message>" of the SlurmCluster's condition `type`, "" while it has none.
std::string ClusterCondition(k8s::Client& client, const char* type) {
  absl::StatusOr<std::string> json = client.Get(api::SlurmClusters(), kNamespace, kCluster);
  if (!json.ok()) return "";
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(*json, "SlurmCluster");
  if (!doc.ok()) return "";
  const rapidjson::Value* status = k8s::FindMember(*doc, "status");
  const rapidjson::Value* conditions =
      status != nullptr ? k8s::FindMember(*status, "conditions") : nullptr;
  if (conditions == nullptr || !conditions->IsArray()) return "";
  for (const rapidjson::Value& condition : conditions->GetArray()) {
    if (k8s::StringMember(condition, "type") == type) {
      return absl::StrCat(k8s::StringMember(condition, "reason"), ": ",
                          k8s::StringMember(condition, "message"));
    }
  }
  return "";
}

// The claim's storage request, "" when absent.
std::string ClaimSize(Fixture& f, const std::string& name) {
  absl::StatusOr<std::string> json = f.client->Get(k8s::PersistentVolumeClaims(), kNamespace, name);
  if (!json.ok()) return "";
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(*json, "PersistentVolumeClaim");
  if (!doc.ok()) return "";
  const rapidjson::Value* spec = k8s::FindMember(*doc, "spec");
  const rapidjson::Value* resources = spec ? k8s::FindMember(*spec, "resources") : nullptr;
  const rapidjson::Value* requests = resources ? k8s::FindMember(*resources, "requests") : nullptr;
  return requests ? k8s::StringMember(*requests, "storage") : "";
}

TEST_CASE("claims grow with their fields where Kubernetes lets them; the status says the rest") {
  Fixture f;
  // A class that allows expansion (the API server's PersistentVolumeClaimResize admission
  // reads it); nothing provisions it here.
  constexpr char kExpandable[] = "tidepool-test-expandable";
  absl::Status made =
      f.client
          ->Create(
              k8s::StorageClasses(), "",
              absl::StrCat(R"({"apiVersion":"storage.k8s.io/v1","kind":"StorageClass",)",
                           R"("metadata":{"name":")", kExpandable, R"("},)",
                           R"("provisioner":"example.invalid/none","allowVolumeExpansion":true})"))
          .status();
  if (!absl::IsAlreadyExists(made)) RequireOk(made);
  f.CreateCluster(absl::StrCat(R"("controller":{"stateSave":{"storageClassName":")", kExpandable,
                               R"(","size":"1Gi"}},)",
                               R"("accounting":{"enabled":true,"managed":{"size":"1Gi"}})"));
  const std::string state_claim = Name("-controller-state");
  const std::string database = Name("-accounting-db");
  REQUIRE(Eventually([&] {
            return f.Exists(k8s::PersistentVolumeClaims(), state_claim) &&
                   f.Exists(k8s::StatefulSets(), database);
          }).has_value());
  // The database's claim, made by hand as the StatefulSet controller would (none runs
  // here); both claims bound with what they asked for, as a provisioner would leave them.
  const std::string data_claim = absl::StrCat("data-", database, "-0");
  RequireOk(
      f.client
          ->Create(k8s::PersistentVolumeClaims(), kNamespace,
                   absl::StrCat(R"({"apiVersion":"v1","kind":"PersistentVolumeClaim",
              "metadata":{"name":")",
                                data_claim, R"(","labels":{"tidepool.dev/cluster":")", kCluster,
                                R"(","tidepool.dev/component":"accounting-database"}},
              "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}})"))
          .status());
  const auto bind = [&](const std::string& claim, const char* capacity) {
    RequireOk(f.client
                  ->MergePatch(k8s::PersistentVolumeClaims(), kNamespace, claim,
                               absl::StrCat(R"({"status":{"phase":"Bound","capacity":{"storage":")",
                                            capacity, R"("}}})"),
                               {}, "status")
                  .status());
  };
  bind(state_claim, "1Gi");
  bind(data_claim, "1Gi");
  std::string storage;
  const auto storage_says = [&](const std::string& prefix) {
    return Eventually([&] {
             storage = ClusterCondition(*f.client, "StorageMatchesSpec");
             return absl::StartsWith(storage, prefix);
           })
        .has_value();
  };
  REQUIRE(storage_says("ClaimsAsSpecified: "));

  // Both sizes doubled: the claim of an expandable class is asked to grow, and grows while
  // its capacity trails; the other one's resize is refused by the API server.
  RequireOk(f.client
                ->MergePatch(api::SlurmClusters(), kNamespace, kCluster,
                             R"({"spec":{"controller":{"stateSave":{"size":"2Gi"}},)"
                             R"("accounting":{"managed":{"size":"2Gi"}}}})")
                .status());
  const bool grown = Eventually([&] { return ClaimSize(f, state_claim) == "2Gi"; }).has_value();
  {
    INFO(f.controller->process.Output());
    CHECK(grown);
    REQUIRE(storage_says("ClaimResizing: "));
  }
  // Asked, then (once the cache shows the new request) growing while the capacity trails.
  CHECK(Eventually([&] {
          storage = ClusterCondition(*f.client, "StorageMatchesSpec");
          return absl::StrContains(storage, "asks for 2Gi and has 1Gi so far");
        }).has_value());
  INFO(storage);
  CHECK(absl::StartsWith(storage, "ClaimResizing: "));
  CHECK(absl::StrContains(
      storage,
      "spec.accounting.managed.size is 2Gi but PersistentVolumeClaim " + data_claim + " has 1Gi"));
  CHECK(absl::StrContains(storage, "only dynamically provisioned pvc can be resized"));
  CHECK_FALSE(absl::StrContains(storage, "\n"));
  CHECK(ClaimSize(f, data_claim) == "1Gi");
  CHECK(f.Logged("claim_resize_requested") == 1);
  // The database's StatefulSet keeps the claim template it was made with (the API server
  // refuses to change it): it is still applied, and slurmdbd waits only for its pods.
  CHECK(absl::StartsWith(ClusterCondition(*f.client, "AccountingAvailable"), "SlurmdbdNotReady"));
  absl::StatusOr<std::string> set = f.client->Get(k8s::StatefulSets(), kNamespace, database);
  REQUIRE(set.ok());
  CHECK(absl::StrContains(*set, R"("requests":{"storage":"1Gi"})"));
  CHECK(absl::StartsWith(ClusterCondition(*f.client, "Ready"), "Slurm"));  // not the claims

  // Grown: only the refusal is left, and it is not asked again while nothing changes (the
  // cluster syncs on every change of its slurmd pods).
  bind(state_claim, "2Gi");
  REQUIRE(storage_says("ClaimResizeRefused: "));
  RequireOk(f.client
                ->MergePatch(api::SlurmClusters(), kNamespace, kCluster,
                             R"({"metadata":{"annotations":{"test/resync":"1"}}})")
                .status());
  absl::SleepFor(absl::Seconds(2));
  CHECK(f.Logged("claim_resize_refused") == 1);

  // Smaller than the claim, and another class: refused before anything is asked.
  RequireOk(f.client
                ->MergePatch(api::SlurmClusters(), kNamespace, kCluster,
                             R"({"spec":{"controller":{"stateSave":{"storageClassName":"other"}},)"
                             R"("accounting":{"managed":{"size":"512Mi"}}}})")
                .status());
  REQUIRE(storage_says("ClaimClassImmutable: "));
  CHECK(absl::StrContains(storage, "a claim cannot shrink; it keeps 1Gi"));
  CHECK(ClaimSize(f, state_claim) == "2Gi");
  CHECK(f.Logged("claim_resize_requested") == 1);
}

// The digest of the certificate the slurmrestd Deployment's pods serve, "" without one.
std::string ServedCertDigest(Fixture& f) {
  absl::StatusOr<std::string> json =
      f.client->Get(k8s::Deployments(), kNamespace, Name("-restapi"));
  if (!json.ok()) return "";
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(*json, "Deployment");
  if (!doc.ok()) return "";
  const rapidjson::Value* value = &*doc;
  for (const char* key : {"spec", "template", "metadata", "annotations"}) {
    value = value != nullptr ? k8s::FindMember(*value, key) : nullptr;
  }
  return value != nullptr ? k8s::StringMember(*value, "tidepool.dev/tls-cert-digest") : "";
}

TEST_CASE(
    "slurmrestd's TLS Secret is generated once; one not the cluster's blocks, deleted rolls") {
  Fixture f;
  f.CreateCluster(R"("restApi":{"replicas":1})");
  const std::string cluster_uid = f.Uid(api::SlurmClusters(), kCluster);
  const std::string tls = Name("-restapi-tls");
  std::string digest;
  const bool served = Eventually([&] {
                        digest = ServedCertDigest(f);
                        return !digest.empty();
                      }).has_value();
  INFO(f.controller->process.Output());
  REQUIRE(served);
  CHECK(absl::StartsWith(digest, "sha256:"));
  absl::StatusOr<std::string> secret = f.client->Get(k8s::Secrets(), kNamespace, tls);
  REQUIRE(secret.ok());
  CHECK(absl::StrContains(*secret, R"("type":"kubernetes.io/tls")"));
  CHECK_FALSE(absl::StrContains(*secret, R"("immutable")"));
  CHECK(absl::StrContains(*secret, cluster_uid));  // its owner
  for (const char* file : {R"("ca.crt":")", R"("tls.crt":")", R"("tls.key":")"}) {
    CHECK(absl::StrContains(*secret, file));
  }
  const std::string secret_uid = f.Uid(k8s::Secrets(), tls);

  // More syncs keep it.
  const auto resync = [&](const char* n) {
    RequireOk(f.client
                  ->MergePatch(
                      api::SlurmClusters(), kNamespace, kCluster,
                      absl::StrCat(R"({"metadata":{"annotations":{"test/resync":")", n, R"("}}})"))
                  .status());
  };
  resync("1");
  absl::SleepFor(absl::Seconds(2));
  CHECK(f.Uid(k8s::Secrets(), tls) == secret_uid);
  CHECK(f.Logged("restapi_tls_created") == 1);

  // Replaced by a Secret the cluster does not control: the step is blocked, nothing applied.
  RequireOk(f.client->Delete(k8s::Secrets(), kNamespace, tls).status());
  RequireOk(f.client
                ->Create(k8s::Secrets(), kNamespace,
                         absl::StrCat(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":")",
                                      tls, R"("},"type":"kubernetes.io/tls","data":{"tls.crt":")",
                                      absl::Base64Escape("x"), R"(","tls.key":")",
                                      absl::Base64Escape("y"), R"("}})"))
                .status());
  resync("2");
  std::string restapi;
  const bool blocked = Eventually([&] {
                         restapi = ClusterCondition(*f.client, "RestApiAvailable");
                         return absl::StartsWith(restapi, "RestApiTlsInvalid: ");
                       }).has_value();
  INFO(restapi);
  REQUIRE(blocked);
  CHECK(absl::StrContains(restapi, absl::StrCat("Secret \"", tls,
                                                "\" is not controlled by "
                                                "SlurmCluster \"",
                                                kCluster, "\"")));
  CHECK(absl::StrContains(restapi, "delete it to have a new certificate generated"));
  CHECK(ServedCertDigest(f) == digest);

  // Deleted: a new certificate, and the pods roll to it.
  RequireOk(f.client->Delete(k8s::Secrets(), kNamespace, tls).status());
  resync("3");
  std::string rolled;
  CHECK(Eventually([&] {
          rolled = ServedCertDigest(f);
          return !rolled.empty() && rolled != digest;
        }).has_value());
  CHECK(f.Logged("restapi_tls_created") == 2);
  CHECK(Eventually([&] {
          return !absl::StartsWith(ClusterCondition(*f.client, "RestApiAvailable"),
                                   "RestApiTlsInvalid");
        }).has_value());
}

TEST_CASE("a component the API server refuses is said in the status; the steps after it run") {
  Fixture f;
  // A quota of no load balancers, its usage written as the controller-manager would (none
  // runs here): the login Service below is refused with 403 "exceeded quota".
  const std::string quota = "no-load-balancers";
  (void)Kubectl(f.kube, {"delete", "resourcequota", "-n", kNamespace, quota, "--ignore-not-found"});
  RequireOk(Kubectl(f.kube,
                    {"create", "quota", quota, "-n", kNamespace, "--hard=services.loadbalancers=0"})
                .status());
  absl::StatusOr<CommandResult> used = Kubectl(
      f.kube,
      {"patch", "resourcequota", quota, "-n", kNamespace, "--subresource=status", "--type=merge",
       "-p",
       R"({"status":{"hard":{"services.loadbalancers":"0"},"used":{"services.loadbalancers":"0"}}})"});
  REQUIRE(used.ok());
  INFO(used->output);
  REQUIRE(used->exit_code == 0);

  f.CreateSshKeysSecret();
  f.CreateCluster(absl::StrCat(R"("login":{"replicas":1,"serviceType":"LoadBalancer",)",
                               R"("sshKeysSecret":")", Name("-ssh-keys"), R"("})"));
  std::string login;
  const bool said = Eventually([&] {
                      login = ClusterCondition(*f.client, "LoginAvailable");
                      return absl::StartsWith(login, "ApplyFailed: ");
                    }).has_value();
  INFO(login << "\n" << f.controller->process.Output());
  (void)Kubectl(f.kube, {"delete", "resourcequota", "-n", kNamespace, quota});
  REQUIRE(said);
  CHECK(absl::StrContains(login, "exceeded quota"));
  // The config step, after the login step, still wrote the cluster's slurm.conf, and the
  // components before it were applied.
  CHECK(f.Exists(k8s::ConfigMaps(), Name("-slurm-config")));
  CHECK(f.Exists(k8s::StatefulSets(), Name("-controller")));
  CHECK(absl::StartsWith(ClusterCondition(*f.client, "ConfigRendered"), "Rendered: "));
}

}  // namespace
}  // namespace tidepool::testing

// Each service's RBAC (manifests/rbac; the charts grant the same rules: helm_charts_test)
// allows exactly the calls its code makes. The API server is asked, one
// SubjectAccessReview per cell, every verb × resource × namespace below as each service's
// account; it must say yes to the calls listed for the service (kCalls, each with the code
// that makes it) and no to everything else.
#include <catch2/catch_test_macros.hpp>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "k8s/client.h"
#include "k8s/config.h"
#include "k8s/object_json.h"
#include "manifests_env.h"
#include "support/testenv.h"

namespace tidepool::testing {
namespace {

constexpr char kOwnNamespace[] = "tidepool-system";
constexpr char kClusterNamespace[] = "hpc";

// "resource[.group][/subresource]", as kubectl writes it.
struct Resource {
  std::string group;
  std::string name;
  std::string subresource;
  bool namespaced = true;

  std::string Text() const {
    return absl::StrCat(name, group.empty() ? "" : ".", group, subresource.empty() ? "" : "/",
                        subresource);
  }
};

Resource ParseResource(absl::string_view text, bool namespaced) {
  std::pair<std::string, std::string> path = absl::StrSplit(text, absl::MaxSplits('/', 1));
  std::pair<std::string, std::string> named = absl::StrSplit(path.first, absl::MaxSplits('.', 1));
  return {.group = named.second,
          .name = named.first,
          .subresource = path.second,
          .namespaced = namespaced};
}

// The cells asked: what a service could plausibly be granted by mistake.
std::vector<Resource> Resources() {
  std::vector<Resource> resources;
  for (const char* text : {"pods",
                           "pods/status",
                           "pods/binding",
                           "pods/eviction",
                           "pods/log",
                           "pods/exec",
                           "secrets",
                           "configmaps",
                           "services",
                           "serviceaccounts",
                           "persistentvolumeclaims",
                           "endpoints",
                           "events",
                           "events.events.k8s.io",
                           "leases.coordination.k8s.io",
                           "statefulsets.apps",
                           "statefulsets.apps/scale",
                           "deployments.apps",
                           "daemonsets.apps",
                           "poddisruptionbudgets.policy",
                           "roles.rbac.authorization.k8s.io",
                           "rolebindings.rbac.authorization.k8s.io",
                           "nodesets.tidepool.dev",
                           "nodesets.tidepool.dev/status",
                           "nodesets.tidepool.dev/scale",
                           "nodesets.tidepool.dev/finalizers",
                           "slurmclusters.tidepool.dev",
                           "slurmclusters.tidepool.dev/status",
                           "slurmclusters.tidepool.dev/finalizers"}) {
    resources.push_back(ParseResource(text, /*namespaced=*/true));
  }
  for (const char* text :
       {"nodes", "nodes/status", "namespaces", "persistentvolumes",
        "clusterroles.rbac.authorization.k8s.io", "clusterrolebindings.rbac.authorization.k8s.io",
        "customresourcedefinitions.apiextensions.k8s.io"}) {
    resources.push_back(ParseResource(text, /*namespaced=*/false));
  }
  return resources;
}

const std::vector<std::string> kVerbs = {"get",    "list",  "watch",  "create",
                                         "update", "patch", "delete", "deletecollection"};
// The service's own, a SlurmCluster's, and one where nothing of Tidepool lives.
const std::vector<std::string> kNamespaces = {kOwnNamespace, kClusterNamespace, "elsewhere"};

enum class Where {
  kEverywhere,        // every namespace (the cluster's namespaces are not known in advance)
  kOwnNamespace,      // tidepool-system only
  kClusterNamespace,  // hpc only: where the sample SlurmCluster lives
};

struct Call {
  std::string resource;  // as in Resources()
  std::vector<std::string> verbs;
  Where where = Where::kEverywhere;
  std::string code;  // what makes the call
};

const std::map<std::string, std::vector<Call>>& Calls();

// One cell of the matrix: "slurm-syncer list secrets in hpc".
struct Cell {
  std::string service;
  std::string verb;
  Resource resource;
  std::string ns;  // "" for cluster-scoped resources

  std::string Text() const {
    return absl::StrCat(service, " ", verb, " ", resource.Text(),
                        ns.empty() ? "" : absl::StrCat(" in ", ns));
  }
};

bool Expected(const Cell& cell) {
  for (const Call& call : Calls().at(cell.service)) {
    if (call.resource != cell.resource.Text()) continue;
    bool verb = false;
    for (const std::string& v : call.verbs) verb |= v == cell.verb;
    if (!verb) continue;
    if (call.where == Where::kOwnNamespace && cell.ns != kOwnNamespace) continue;
    if (call.where == Where::kClusterNamespace && cell.ns != kClusterNamespace) continue;
    return true;
  }
  return false;
}

std::string ReviewJson(const Cell& cell) {
  const std::string account = absl::StrCat("tidepool-", cell.service);
  return k8s::JsonObject([&](k8s::JsonWriter& w) {
    k8s::WriteStringMember(w, "apiVersion", "authorization.k8s.io/v1");
    k8s::WriteStringMember(w, "kind", "SubjectAccessReview");
    w.Key("spec");
    w.StartObject();
    k8s::WriteStringMember(w, "user",
                           absl::StrCat("system:serviceaccount:", kOwnNamespace, ":", account));
    w.Key("groups");
    w.StartArray();
    for (const std::string& group : {std::string("system:serviceaccounts"),
                                     absl::StrCat("system:serviceaccounts:", kOwnNamespace),
                                     std::string("system:authenticated")}) {
      w.String(group.c_str());
    }
    w.EndArray();
    w.Key("resourceAttributes");
    w.StartObject();
    if (!cell.ns.empty()) k8s::WriteStringMember(w, "namespace", cell.ns);
    k8s::WriteStringMember(w, "verb", cell.verb);
    k8s::WriteStringMember(w, "group", cell.resource.group);
    k8s::WriteStringMember(w, "resource", cell.resource.name);
    if (!cell.resource.subresource.empty()) {
      k8s::WriteStringMember(w, "subresource", cell.resource.subresource);
    }
    w.EndObject();
    w.EndObject();
  });
}

bool Allowed(k8s::Client& client, const Cell& cell) {
  absl::StatusOr<std::string> reply =
      client.Call({.method = "POST",
                   .path = "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                   .body = ReviewJson(cell)});
  INFO(cell.Text());
  REQUIRE(reply.ok());
  absl::StatusOr<rapidjson::Document> review = k8s::ParseJsonObject(*reply, "review");
  REQUIRE(review.ok());
  const rapidjson::Value* status = k8s::FindMember(*review, "status");
  REQUIRE(status != nullptr);
  return k8s::BoolMember(*status, "allowed");
}

std::vector<Cell> Matrix(const std::string& service) {
  std::vector<Cell> cells;
  for (const Resource& resource : Resources()) {
    const std::vector<std::string> namespaces =
        resource.namespaced ? kNamespaces : std::vector<std::string>{""};
    for (const std::string& ns : namespaces) {
      for (const std::string& verb : kVerbs) cells.push_back({service, verb, resource, ns});
    }
  }
  return cells;
}

TEST_CASE("each service's RBAC allows exactly the calls its code makes") {
  auto env = Kubernetes();
  REQUIRE(env.ok());
  PrepareManifests(*env);
  absl::StatusOr<k8s::ClientConfig> config = k8s::LoadKubeconfig(env->kubeconfig);
  REQUIRE(config.ok());
  config->qps = 0;
  k8s::Client client(*config);

  std::vector<std::string> granted_unused;
  std::vector<std::string> needed_denied;
  size_t asked = 0;
  for (const auto& [service, calls] : Calls()) {
    for (const Call& call : calls) {  // a typo in the table must not pass as "no"
      bool known = false;
      for (const Resource& resource : Resources()) known |= resource.Text() == call.resource;
      INFO(service << ": " << call.resource);
      REQUIRE(known);
    }
    for (const Cell& cell : Matrix(service)) {
      const bool allowed = Allowed(client, cell);
      const bool expected = Expected(cell);
      ++asked;
      if (allowed && !expected) granted_unused.push_back(cell.Text());
      if (!allowed && expected) needed_denied.push_back(cell.Text());
    }
  }
  INFO("granted, yet no code calls it:\n  " << absl::StrJoin(granted_unused, "\n  "));
  INFO("called, yet denied:\n  " << absl::StrJoin(needed_denied, "\n  "));
  CHECK(Calls().size() == 5);
  CHECK(asked == 5 * kVerbs.size() * (29 * kNamespaces.size() + 7));
  CHECK(granted_unused.empty());
  CHECK(needed_denied.empty());
}

// What each service's code calls. Informers list and watch; leader election gets, creates
// and updates its Lease in the service's own namespace; the event recorder creates
// events.k8s.io Events and patches them when they repeat.
const std::map<std::string, std::vector<Call>>& Calls() {
  const std::vector<std::string> informer = {"list", "watch"};
  const Call lease{"leases.coordination.k8s.io",
                   {"get", "create", "update"},
                   Where::kOwnNamespace,
                   "libs/k8s/leader_election.cc"};
  const Call events{"events.events.k8s.io",
                    {"create", "patch"},
                    Where::kEverywhere,
                    "libs/k8s/event_recorder.cc, in the namespace of the object"};
  // Owned objects carry blockOwnerDeletion: with the OwnerReferencesPermissionEnforcement
  // admission plugin their creator must be able to update the owner's finalizers.
  static const auto* const calls = new std::map<std::string, std::vector<Call>>{
      {"config-renderer", {}},  // no API calls: it renders from gRPC requests
      {"nodeset-controller",
       {{"nodesets.tidepool.dev",
         {"list", "watch", "patch"},
         Where::kEverywhere,
         "setup.cc informer; sync.cc its finalizer (merge patch)"},
        {"nodesets.tidepool.dev/status", {"patch"}, Where::kEverywhere, "sync.cc status"},
        {"nodesets.tidepool.dev/finalizers",
         {"update"},
         Where::kEverywhere,
         "its slurmd pods' blockOwnerDeletion"},
        {"slurmclusters.tidepool.dev", informer, Where::kEverywhere, "setup.cc informer"},
        {"pods",
         {"list", "watch", "create", "delete"},
         Where::kEverywhere,
         "setup.cc informer; sync.cc create, protected delete"},
        {"pods/status",
         {"patch"},
         Where::kEverywhere,
         "gate_guard.cc SlurmNodeInUse held True (apply)"},
        {"configmaps", {"get"}, Where::kEverywhere, "sync.cc Prolog/Epilog ConfigMaps"},
        {"nodes", {"list", "watch", "patch"}, Where::kEverywhere, "setup.cc informer; labels"},
        events,
        lease}},
      {"slurm-syncer",
       {{"pods",
         {"list", "watch", "patch"},
         Where::kEverywhere,
         "two_way_sync.cc informer; annotations"},
        {"pods/status", {"patch"}, Where::kEverywhere, "two_way_sync.cc conditions (apply)"},
        {"nodes",
         {"list", "watch", "patch"},
         Where::kEverywhere,
         "two_way_sync.cc informer; annotations"},
        {"nodes/status", {"patch"}, Where::kEverywhere, "two_way_sync.cc conditions (apply)"},
        {"nodesets.tidepool.dev", informer, Where::kEverywhere,
         "two_way_sync.cc: pods are synced by their controlling NodeSet"},
        {"slurmclusters.tidepool.dev",
         {"get"},
         Where::kClusterNamespace,
         "cluster_jwt_key.cc: --slurm_cluster"},
        {"secrets",
         {"get"},
         Where::kClusterNamespace,
         "cluster_jwt_key.cc: the JWT key of --slurm_cluster, by name"},
        {"services",
         {"get"},
         Where::kClusterNamespace,
         "restapi_url.cc: slurmrestd's address of --slurm_cluster"},
        lease}},
      {"cluster-controller",
       {{"slurmclusters.tidepool.dev",
         {"list", "watch", "patch"},
         Where::kEverywhere,
         "controller.cc informer; teardown.cc its finalizer"},
        {"slurmclusters.tidepool.dev/status", {"patch"}, Where::kEverywhere, "sync.cc status"},
        {"slurmclusters.tidepool.dev/finalizers",
         {"update"},
         Where::kEverywhere,
         "owned objects' blockOwnerDeletion"},
        {"nodesets.tidepool.dev", informer, Where::kEverywhere, "controller.cc informer"},
        {"nodes", informer, Where::kEverywhere, "controller.cc informer"},
        {"pods",
         {"list", "watch", "patch"},
         Where::kEverywhere,
         "informer and lists; config_sync.cc, login_sync.cc restart annotations"},
        {"configmaps",
         {"get", "list", "watch", "create", "patch"},
         Where::kEverywhere,
         "informer; login_sync.cc get; server-side apply (patch, create when absent)"},
        {"secrets",
         {"get", "create"},
         Where::kClusterNamespace,
         "auth, accounting, login: read by name; generated_secret.cc creates"},
        {"services",
         {"list", "watch", "create", "patch", "delete"},
         Where::kEverywhere,
         "informer; apply; component_step.cc removes"},
        {"statefulsets.apps",
         {"list", "watch", "create", "patch", "delete"},
         Where::kEverywhere,
         "informer; apply; component_step.cc and teardown.cc remove"},
        {"deployments.apps",
         {"list", "watch", "create", "patch", "delete"},
         Where::kEverywhere,
         "informer; apply; component_step.cc and teardown.cc remove"},
        {"poddisruptionbudgets.policy",
         {"list", "watch", "create", "patch", "delete"},
         Where::kEverywhere,
         "informer; apply; controller_sync.cc's owned objects"},
        {"persistentvolumeclaims",
         {"get", "list", "watch", "create", "patch", "delete"},
         Where::kEverywhere,
         "informer; controller_sync.cc; claim_resize.cc (grow); teardown.cc (delete-claims)"},
        events,
        lease}},
      {"pod-scheduler",
       {{"pods",
         {"list", "watch", "patch", "delete"},
         Where::kEverywhere,
         "setup.cc informers; pod_writes.cc job-id annotation, delete"},
        {"pods/binding", {"create"}, Where::kEverywhere, "pod_writes.cc BindPod"},
        {"pods/status", {"patch"}, Where::kEverywhere, "pod_writes.cc PodScheduled=False"},
        {"nodesets.tidepool.dev", informer, Where::kEverywhere, "setup.cc informer"},
        {"slurmclusters.tidepool.dev", informer, Where::kEverywhere, "setup.cc informer"},
        events,
        lease}},
  };
  return *calls;
}

}  // namespace
}  // namespace tidepool::testing

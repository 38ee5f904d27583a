// Each service chart, the umbrella chart and the slurm-cluster chart lint cleanly, render
// objects the API server accepts (server-side dry run), and the service charts grant
// exactly the RBAC rules of manifests/rbac. Wrong values fail with a message naming the
// value, and the charts' schemas are what tools/charts/schemas writes.
#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/grpc_channel.h"
#include "common/grpc_server.h"
#include "common/grpc_tls.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "support/ports.h"
#include "support/testenv.h"
#include "yaml-cpp/yaml.h"

namespace tidepool::testing {
namespace {

namespace fs = std::filesystem;

const char* const kServices[] = {"config-renderer", "slurm-syncer", "nodeset-controller",
                                 "cluster-controller", "pod-scheduler"};

// helm is built on demand (the fixtures need only the API server and kubectl).
std::string Helm() {
  absl::StatusOr<std::string> helm = TestenvTool("helm");
  INFO(helm.status());
  REQUIRE(helm.ok());
  return *helm;
}

// What a chart needs besides its defaults: the SlurmCluster served.
std::vector<std::string> RequiredValues(const std::string& chart) {
  if (chart == "tidepool") return {"--set", "global.slurmCluster=hpc/research"};
  if (chart == "config-renderer") return {};
  return {"--set", "slurmCluster=hpc/research"};
}

size_t Occurrences(absl::string_view text, absl::string_view needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != absl::string_view::npos;
       at = text.find(needle, at + needle.size())) {
    ++count;
  }
  return count;
}

std::vector<std::string> Concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

CommandResult Must(const std::vector<std::string>& argv) {
  auto result = RunCommand(argv, absl::Minutes(3));
  REQUIRE(result.ok());
  INFO(argv[0] << " " << argv[1] << ": " << result->output);
  REQUIRE(result->exit_code == 0);
  return *result;
}

// A copy of charts/ so dependency builds do not write into the source.
std::string ChartsCopy() {
  const std::string copy = "/tmp/tidepool-charts-test";
  std::error_code error;
  fs::remove_all(copy, error);
  // Copying follows links: the umbrella's crds/ (a link to manifests/crds) becomes a folder.
  fs::copy(TIDEPOOL_CHARTS_DIR, copy, fs::copy_options::recursive, error);
  REQUIRE_FALSE(error);
  return copy;
}

YAML::Node ClusterRoleRules(const std::string& yaml_text) {
  for (const YAML::Node& document : YAML::LoadAll(yaml_text)) {
    if (document && document["kind"] && document["kind"].as<std::string>() == "ClusterRole") {
      return document["rules"];
    }
  }
  FAIL("no ClusterRole");
  return {};
}

// "name: rules" of every Role in `ns`, by name: what is granted in a SlurmCluster's
// namespace only.
std::string RolesIn(const std::string& yaml_text, const std::string& ns) {
  std::map<std::string, std::string> roles;
  for (const YAML::Node& document : YAML::LoadAll(yaml_text)) {
    if (!document || !document["kind"] || document["kind"].as<std::string>() != "Role") continue;
    const YAML::Node meta = document["metadata"];
    if (!meta["namespace"] || meta["namespace"].as<std::string>() != ns) continue;
    YAML::Emitter emitter;
    emitter << document["rules"];
    roles[meta["name"].as<std::string>()] = emitter.c_str();
  }
  std::string out;
  for (const auto& [name, rules] : roles) absl::StrAppend(&out, name, ": ", rules, "\n");
  return out;
}

std::string Emit(const YAML::Node& node) {
  YAML::Emitter emitter;
  emitter << node;
  return emitter.c_str();
}

TEST_CASE("charts lint, render what the API server accepts, and match manifests/rbac") {
  auto env = Kubernetes();
  REQUIRE(env.ok());
  const std::string helm = Helm();
  const std::string charts = ChartsCopy();
  Must({env->kubectl, "--kubeconfig", env->kubeconfig, "apply", "-f",
        std::string(TIDEPOOL_MANIFESTS_DIR) + "/rbac/namespace.yaml"});
  Must({env->kubectl, "--kubeconfig", env->kubeconfig, "apply", "-f",
        std::string(TIDEPOOL_MANIFESTS_DIR) + "/crds"});
  // The SlurmCluster's namespace, where the charts grant Secrets: it exists first.
  REQUIRE(RunCommand({env->kubectl, "--kubeconfig", env->kubeconfig, "create", "namespace", "hpc"},
                     absl::Minutes(1))
              .ok());
  for (const char* service : kServices) {
    CAPTURE(service);
    const std::string chart = charts + "/" + service;
    Must({helm, "dependency", "build", chart});
    Must(Concat({helm, "lint", chart}, RequiredValues(service)));
    const std::string rendered =
        Must(Concat({helm, "template", "t", chart, "--namespace", "tidepool-system"},
                    RequiredValues(service)))
            .output;
    const std::string file = chart + "/rendered.yaml";
    std::ofstream(file) << rendered;
    Must({env->kubectl, "--kubeconfig", env->kubeconfig, "apply", "--dry-run=server", "-f", file});
    CHECK(absl::StrContains(rendered, "path: /readyz"));
    std::ifstream manifest(std::string(TIDEPOOL_MANIFESTS_DIR) + "/rbac/" + service + ".yaml");
    std::stringstream manifest_text;
    manifest_text << manifest.rdbuf();
    CHECK(Emit(ClusterRoleRules(rendered)) == Emit(ClusterRoleRules(manifest_text.str())));
    CHECK(RolesIn(rendered, "hpc") == RolesIn(manifest_text.str(), "hpc"));
  }
  {
    // Secrets only in the served SlurmCluster's namespace, or those the chart is told.
    const std::string chart = charts + "/cluster-controller";
    for (const std::string controller : {"cluster-controller", "nodeset-controller"}) {
      auto unset = RunCommand({helm, "template", "t", charts + "/" + controller}, absl::Minutes(1));
      REQUIRE(unset.ok());
      CAPTURE(controller, unset->output);
      CHECK(unset->exit_code != 0);
      CHECK(absl::StrContains(unset->output, "set slurmCluster (or global.slurmCluster"));
    }
    const std::string served =
        Must({helm, "template", "t", chart, "--set", "slurmCluster=lab/research"}).output;
    CHECK(absl::StrContains(served, "--slurm_cluster=lab/research"));
    CHECK(absl::StrContains(RolesIn(served, "lab"), "tidepool-cluster-controller-secrets: "));
    CHECK(RolesIn(served, "hpc").empty());
    const std::string two =
        Must({helm, "template", "t", chart, "--set", "slurmCluster=hpc/research", "--set",
              "clusterNamespaces={hpc,lab}"})
            .output;
    CHECK(absl::StrContains(RolesIn(two, "lab"), "tidepool-cluster-controller-secrets: "));
    CHECK(RolesIn(two, "hpc") == RolesIn(two, "lab"));
    CHECK(RolesIn(two, "elsewhere").empty());
  }
  const std::string umbrella = charts + "/tidepool";
  Must({helm, "dependency", "build", umbrella});
  Must(Concat({helm, "lint", umbrella}, RequiredValues("tidepool")));
  const std::string rendered = Must(Concat({helm, "template", "t", umbrella, "--namespace",
                                            "tidepool-system", "--include-crds"},
                                           RequiredValues("tidepool")))
                                   .output;
  CHECK(absl::StrContains(rendered, "name: nodesets.tidepool.dev"));
  const std::string file = umbrella + "/rendered.yaml";
  std::ofstream(file) << rendered;
  Must({env->kubectl, "--kubeconfig", env->kubeconfig, "apply", "--dry-run=server", "-f", file});
  // Wired by Service name: the callers reach slurm-syncer and config-renderer in the
  // release's namespace, and every service but the renderer serves the SlurmCluster given
  // once (the controllers leave other clusters to their releases).
  CHECK(absl::StrContains(rendered, "--syncer_address=slurm-syncer.tidepool-system.svc:50051"));
  CHECK(
      absl::StrContains(rendered, "--renderer_address=config-renderer.tidepool-system.svc:50051"));
  CHECK(Occurrences(rendered, "--slurm_cluster=hpc/research") == 4);
  // The cluster-controller's Secrets and the syncer's reads in the cluster's namespace only.
  CHECK(absl::StrContains(RolesIn(rendered, "hpc"), "tidepool-cluster-controller-secrets: "));
  CHECK(absl::StrContains(RolesIn(rendered, "hpc"), "tidepool-slurm-syncer-cluster: "));
  CHECK(absl::StrContains(rendered, "--leader_election_namespace=tidepool-system"));
  CHECK(absl::StrContains(rendered, "kind: PodDisruptionBudget"));
  CHECK(absl::StrContains(rendered, "kind: NetworkPolicy"));
  std::error_code error;
  fs::remove_all(charts, error);
}

// Who a chart's NetworkPolicy admits to the gRPC port: per peer, the namespace it names
// (empty: the policy's own) and the pods' app.kubernetes.io/name. A peer that names a
// namespace without pods (any pod there) or anything else fails the test.
struct GrpcPeer {
  std::string namespace_name;
  std::string app;
  bool operator==(const GrpcPeer&) const = default;
};

std::vector<GrpcPeer> GrpcPeers(const std::string& rendered) {
  std::vector<GrpcPeer> peers;
  for (const YAML::Node& document : YAML::LoadAll(rendered)) {
    if (!document || !document["kind"] || document["kind"].as<std::string>() != "NetworkPolicy") {
      continue;
    }
    for (const YAML::Node& rule : document["spec"]["ingress"]) {
      if (!rule["from"]) continue;
      for (const YAML::Node& from : rule["from"]) {
        INFO(YAML::Dump(from));
        REQUIRE(from.size() == (from["namespaceSelector"] ? 2U : 1U));
        REQUIRE(from["podSelector"]["matchLabels"]["app.kubernetes.io/name"]);
        GrpcPeer peer{
            "", from["podSelector"]["matchLabels"]["app.kubernetes.io/name"].as<std::string>()};
        if (from["namespaceSelector"]) {
          REQUIRE(from["namespaceSelector"].size() == 1U);
          REQUIRE(from["namespaceSelector"]["matchLabels"].size() == 1U);
          peer.namespace_name =
              from["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"]
                  .as<std::string>();
        }
        peers.push_back(peer);
      }
    }
  }
  return peers;
}

// `helm template` of a chart with extra arguments: exit code and output.
CommandResult Template(const std::string& helm, const std::string& chart,
                       const std::vector<std::string>& extra) {
  auto result = RunCommand(Concat({helm, "template", "t", chart}, extra), absl::Minutes(1));
  REQUIRE(result.ok());
  return *result;
}

TEST_CASE("wrong chart values fail with a message naming the value") {
  const std::string helm = Helm();
  const std::string charts = ChartsCopy();
  const std::string syncer = charts + "/slurm-syncer";
  Must({helm, "dependency", "build", syncer});
  struct Case {
    std::vector<std::string> values;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--set", "slurmCluster=hpc/research", "--set", "replicas=0"}, "replicas"},
      {{"--set", "slurmCluster=hpc/research", "--set", "logLevel=verbose"}, "logLevel"},
      {{"--set", "slurmCluster=hpc/research", "--set", "replica=2"}, "replica"},
      {{"--set", "slurmCluster=hpc/research", "--set", "ports.grpc=70000"}, "grpc"},
      {{"--set", "slurmCluster=hpc/research", "--set", "drainNodeConditions={Ready}"},
       "drainNodeConditions"},
      {{"--set", "slurmCluster=research"}, "slurmCluster"},
      {{}, "set slurmCluster (or global.slurmCluster"},
  };
  for (const Case& c : cases) {
    const CommandResult result = Template(helm, syncer, c.values);
    CAPTURE(absl::StrJoin(c.values, " "), result.output);
    CHECK(result.exit_code != 0);
    CHECK(absl::StrContains(result.output, c.message));
  }
  const std::string cluster = charts + "/slurm-cluster";
  const CommandResult bad_key = Template(helm, cluster, {"--set", "sshAuthorizedKeys.Bad=x"});
  CAPTURE(bad_key.output);
  CHECK(bad_key.exit_code != 0);
  CHECK(absl::StrContains(bad_key.output, "sshAuthorizedKeys"));
  // The same arguments with right values render: the failures above are the values'.
  CHECK(Template(helm, syncer, {"--set", "slurmCluster=hpc/research", "--set", "replicas=3"})
            .exit_code == 0);
  std::error_code error;
  fs::remove_all(charts, error);
}

TEST_CASE("nodeset-controller reads slurm-syncer's Lease in the namespace slurm-syncer runs in") {
  const std::string helm = Helm();
  const std::string charts = ChartsCopy();
  const std::string chart = charts + "/nodeset-controller";
  Must({helm, "dependency", "build", chart});
  // Default: the release's namespace, where its own Lease Role already grants get.
  const std::string same = Must({helm, "template", "t", chart, "--namespace", "tidepool-system",
                                 "--set", "slurmCluster=hpc/research"})
                               .output;
  // (the Lease namespace defaults to the leader election one: no flag, so the guard can
  // still be turned off with --syncer_lease_name= alone)
  CHECK_FALSE(absl::StrContains(same, "--syncer_lease_namespace"));
  CHECK(absl::StrContains(same, "--leader_election_namespace=tidepool-system"));
  CHECK(absl::StrContains(same, "--syncer_address=slurm-syncer.tidepool-system.svc:50051"));
  CHECK(RolesIn(same, "slurm").empty());
  // Elsewhere: the Lease and the address there, and get of that one Lease only there.
  const std::string other =
      Must({helm, "template", "t", chart, "--namespace", "tidepool-system", "--set",
            "slurmCluster=hpc/research", "--set", "syncerNamespace=slurm"})
          .output;
  CHECK(absl::StrContains(other, "--syncer_lease_namespace=slurm"));
  CHECK(absl::StrContains(other, "--syncer_address=slurm-syncer.slurm.svc:50051"));
  const std::string roles = RolesIn(other, "slurm");
  CAPTURE(roles);
  CHECK(absl::StrContains(roles, "tidepool-nodeset-controller-syncer-lease: "));
  CHECK(absl::StrContains(roles, "resourceNames"));
  CHECK(absl::StrContains(roles, "slurm-syncer"));
  CHECK_FALSE(absl::StrContains(roles, "update"));
  // A namespace that is not one is refused by the values schema.
  const CommandResult bad = Template(
      helm, chart, {"--set", "slurmCluster=hpc/research", "--set", "syncerNamespace=Slurm_NS"});
  CAPTURE(bad.output);
  CHECK(bad.exit_code != 0);
  CHECK(absl::StrContains(bad.output, "syncerNamespace"));

  // slurm-syncer there admits nodeset-controller's namespace to its gRPC port once told to.
  const std::string syncer = charts + "/slurm-syncer";
  Must({helm, "dependency", "build", syncer});
  const std::vector<std::string> syncer_in_slurm = {
      helm, "template", "t", syncer, "--namespace", "slurm", "--set", "slurmCluster=hpc/research"};
  const std::vector<GrpcPeer> alone = GrpcPeers(Must(syncer_in_slurm).output);
  CHECK(alone.size() == 3);
  for (const GrpcPeer& peer : alone) CHECK(peer.namespace_name.empty());
  const std::vector<GrpcPeer> admitted =
      GrpcPeers(Must(Concat(syncer_in_slurm,
                            {"--set", "networkPolicy.grpcClientNamespaces={tidepool-system}"}))
                    .output);
  CHECK(admitted.size() == 6);
  for (const char* const client : {"nodeset-controller", "cluster-controller", "pod-scheduler"}) {
    CHECK(std::count(admitted.begin(), admitted.end(), GrpcPeer{"", client}) == 1);
    CHECK(std::count(admitted.begin(), admitted.end(), GrpcPeer{"tidepool-system", client}) == 1);
  }
  const CommandResult bad_namespace =
      Template(helm, syncer,
               {"--set", "slurmCluster=hpc/research", "--set",
                "networkPolicy.grpcClientNamespaces={Not_A_Namespace}"});
  CAPTURE(bad_namespace.output);
  CHECK(bad_namespace.exit_code != 0);
  CHECK(absl::StrContains(bad_namespace.output, "grpcClientNamespaces"));
  std::error_code error;
  fs::remove_all(charts, error);
}

TEST_CASE("the slurm-cluster chart renders a SlurmCluster and NodeSets the API server accepts") {
  auto env = Kubernetes();
  REQUIRE(env.ok());
  const std::string helm = Helm();
  const std::string charts = ChartsCopy();
  const std::string chart = charts + "/slurm-cluster";
  const std::vector<std::string> values = {
      "--set", "images.registry=localhost/tidepool", "--set",
      "sshAuthorizedKeys.researcher=ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample researcher"};
  Must(Concat({helm, "lint", chart}, values));
  const std::string rendered =
      Must(Concat({helm, "template", "research", chart, "--namespace", "tidepool-system"}, values))
          .output;
  CHECK(absl::StrContains(rendered, "kind: SlurmCluster"));
  CHECK(absl::StrContains(rendered, "clusterName: research"));
  CHECK(absl::StrContains(rendered, "controller: localhost/tidepool/slurmctld:26.05"));
  CHECK(absl::StrContains(rendered, "accountingDatabase: localhost/tidepool/mariadb:10.11"));
  CHECK(absl::StrContains(rendered, "sshKeysSecret: research-ssh-keys"));
  CHECK(absl::StrContains(rendered, "kind: NodeSet"));
  CHECK(absl::StrContains(rendered, "clusterRef:\n    name: research"));
  Must({env->kubectl, "--kubeconfig", env->kubeconfig, "apply", "-f",
        std::string(TIDEPOOL_MANIFESTS_DIR) + "/rbac/namespace.yaml"});
  Must({env->kubectl, "--kubeconfig", env->kubeconfig, "apply", "-f",
        std::string(TIDEPOOL_MANIFESTS_DIR) + "/crds"});
  const std::string file = chart + "/rendered.yaml";
  std::ofstream(file) << rendered;
  Must({env->kubectl, "--kubeconfig", env->kubeconfig, "apply", "--dry-run=server", "-f", file});
  std::error_code error;
  fs::remove_all(charts, error);
}

TEST_CASE("the charts' values schemas are what tools/charts/schemas writes") {
  Must({SourceRoot() + "/tools/charts/schemas", "--check"});
}

std::string FileText(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::vector<YAML::Node> OfKind(const std::string& yaml_text, const std::string& kind) {
  std::vector<YAML::Node> found;
  for (const YAML::Node& document : YAML::LoadAll(yaml_text)) {
    if (document && document["kind"] && document["kind"].as<std::string>() == kind) {
      found.push_back(document);
    }
  }
  return found;
}

// The node as text with its maps' keys sorted and scalars as plain values: equal for the
// same data whatever the key order or quoting style.
std::string Canonical(const YAML::Node& node) {
  if (node.IsScalar()) return "\"" + node.Scalar() + "\"";
  std::string text;
  if (node.IsSequence()) {
    for (const YAML::Node& item : node) text += Canonical(item) + ",";
    return "[" + text + "]";
  }
  std::map<std::string, std::string> members;
  for (const auto& member : node) members[member.first.Scalar()] = Canonical(member.second);
  for (const auto& [key, value] : members) text += key + ":" + value + ",";
  return "{" + text + "}";
}

TEST_CASE("the umbrella chart ships the dashboards for Grafana's sidecar and the alerts") {
  const std::string helm = Helm();
  const std::string charts = ChartsCopy();
  const std::string umbrella = charts + "/tidepool";
  Must({helm, "dependency", "build", umbrella});
  const std::vector<std::string> base =
      Concat({"--namespace", "tidepool-system"}, RequiredValues("tidepool"));

  // One ConfigMap per file of manifests/dashboards, labelled for the sidecar, the file as is.
  std::map<std::string, std::string> files;
  for (const auto& entry :
       fs::directory_iterator(std::string(TIDEPOOL_MANIFESTS_DIR) + "/dashboards")) {
    files[entry.path().filename().string()] = FileText(entry.path().string());
  }
  REQUIRE(files.size() == 7);
  const CommandResult rendered = Template(helm, umbrella, base);
  REQUIRE(rendered.exit_code == 0);
  std::map<std::string, std::string> shipped;
  for (const YAML::Node& map : OfKind(rendered.output, "ConfigMap")) {
    if (map["metadata"]["labels"]["app.kubernetes.io/component"].as<std::string>("") !=
        "dashboard") {
      continue;
    }
    CHECK(map["metadata"]["labels"]["grafana_dashboard"].as<std::string>("") == "1");
    for (const auto& item : map["data"]) {
      shipped[item.first.as<std::string>()] = item.second.as<std::string>() + "\n";
    }
  }
  CHECK(shipped == files);

  // The PrometheusRule: only where the API server serves the kind (auto), or when asked;
  // its groups are the rule file's.
  CHECK(OfKind(rendered.output, "PrometheusRule").empty());
  const CommandResult with_operator =
      Template(helm, umbrella,
               Concat(base, {"--api-versions", "monitoring.coreos.com/v1/PrometheusRule", "--set",
                             "prometheusRules.labels.release=kube-prometheus"}));
  REQUIRE(with_operator.exit_code == 0);
  const std::vector<YAML::Node> rules = OfKind(with_operator.output, "PrometheusRule");
  REQUIRE(rules.size() == 1);
  CHECK(rules[0]["metadata"]["labels"]["release"].as<std::string>("") == "kube-prometheus");
  const YAML::Node file_rules =
      YAML::LoadFile(std::string(TIDEPOOL_MANIFESTS_DIR) + "/prometheus/tidepool-alerts.yaml");
  CHECK(Canonical(rules[0]["spec"]["groups"]) == Canonical(file_rules["groups"]));

  // Off when told, and a wrong switch is named.
  const CommandResult off = Template(
      helm, umbrella,
      Concat(base, {"--set", "dashboards.enabled=false", "--set", "prometheusRules.enabled=false",
                    "--api-versions", "monitoring.coreos.com/v1/PrometheusRule"}));
  REQUIRE(off.exit_code == 0);
  CHECK_FALSE(absl::StrContains(off.output, "grafana_dashboard"));
  CHECK(OfKind(off.output, "PrometheusRule").empty());
  const CommandResult wrong =
      Template(helm, umbrella, Concat(base, {"--set", "prometheusRules.enabled=sometimes"}));
  CAPTURE(wrong.output);
  CHECK(wrong.exit_code != 0);
  CHECK(absl::StrContains(wrong.output, "prometheusRules"));
  std::error_code error;
  fs::remove_all(charts, error);
}

}  // namespace
}  // namespace tidepool::testing

namespace tidepool::testing {
namespace {

// The Secret's data key, decoded, written to `dir` (mode 0600, as a key must be).
void WriteDecoded(const YAML::Node& secret, const std::string& key, const std::string& dir) {
  std::string decoded;
  REQUIRE(absl::Base64Unescape(secret["data"][key].as<std::string>(), &decoded));
  const std::string path = dir + "/" + key;
  std::ofstream(path) << decoded;
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
}

// The chart's Secret for `service` as a --grpc_tls_dir.
common::GrpcTls Identity(const std::vector<YAML::Node>& secrets, const std::string& service,
                         const std::string& base) {
  const std::string name = "tidepool-grpc-" + service;
  for (const YAML::Node& secret : secrets) {
    if (secret["metadata"]["name"].as<std::string>() != name) continue;
    CHECK(secret["type"].as<std::string>() == "kubernetes.io/tls");
    const std::string dir = base + "/" + service;
    fs::create_directories(dir);
    for (const char* key : {"ca.crt", "tls.crt", "tls.key"}) WriteDecoded(secret, key, dir);
    absl::StatusOr<common::GrpcTls> tls = common::LoadGrpcTlsDir(dir);
    INFO(tls.status());
    REQUIRE(tls.ok());
    return *tls;
  }
  FAIL("no Secret " << name);
  return {};
}

grpc::StatusCode HealthAs(uint16_t port, const common::GrpcTls& caller, const std::string& server) {
  auto channel =
      common::MakeChannel(absl::StrCat("127.0.0.1:", port), {.tls = caller, .server_name = server});
  REQUIRE(channel.ok());
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  grpc::health::v1::HealthCheckResponse response;
  return grpc::health::v1::Health::NewStub(*channel)->Check(&context, {}, &response).error_code();
}

// slurm-syncer serving with its identity from the chart's `secrets` and nodeset-controller
// calling it with its own, expecting the server to be `expected_server`: the call's code.
grpc::StatusCode NodesetCallsSyncer(const std::vector<YAML::Node>& secrets, const std::string& base,
                                    const std::string& expected_server) {
  const common::GrpcTls syncer = Identity(secrets, "slurm-syncer", base);
  const common::GrpcTls nodeset = Identity(secrets, "nodeset-controller", base);
  const uint16_t port = FreeLoopbackPort().value();
  auto server = common::GrpcServer::Start("127.0.0.1", port, {}, {.tls = syncer});
  REQUIRE(server.ok());
  return HealthAs(port, nodeset, expected_server);
}

TEST_CASE("the umbrella chart gives each service a gRPC identity of one CA, mounted 0440") {
  const std::string helm = Helm();
  const std::string charts = ChartsCopy();
  const std::string umbrella = charts + "/tidepool";
  Must({helm, "dependency", "build", umbrella});
  const CommandResult rendered = Template(
      helm, umbrella, Concat({"--namespace", "tidepool-system"}, RequiredValues("tidepool")));
  REQUIRE(rendered.exit_code == 0);

  const std::vector<YAML::Node> secrets = OfKind(rendered.output, "Secret");
  CHECK(secrets.size() == 6);  // the CA and one per service
  for (const YAML::Node& deployment : OfKind(rendered.output, "Deployment")) {
    const std::string service = deployment["metadata"]["name"].as<std::string>();
    INFO(service);
    const YAML::Node pod = deployment["spec"]["template"]["spec"];
    CHECK(pod["securityContext"]["fsGroup"].as<int>() == 65532);
    CHECK(pod["volumes"][0]["secret"]["secretName"].as<std::string>() ==
          "tidepool-grpc-" + service);
    CHECK(pod["volumes"][0]["secret"]["defaultMode"].as<std::string>() == "0440");
    const YAML::Node args = pod["containers"][0]["args"];
    CHECK(std::any_of(args.begin(), args.end(), [](const YAML::Node& arg) {
      return arg.as<std::string>() == "--grpc_tls_dir=/etc/tidepool/grpc-tls";
    }));
  }

  // The Secrets work with gRPC as the services use it: the syncer's serves, nodeset-controller's
  // calls, each checked against the CA.
  const std::string base = charts + "/grpc-tls";
  CHECK(NodesetCallsSyncer(secrets, base, "slurm-syncer") == grpc::StatusCode::OK);
  // The certificate names its service: a caller expecting the renderer refuses it.
  CHECK(NodesetCallsSyncer(secrets, base, "config-renderer") == grpc::StatusCode::UNAVAILABLE);
  std::error_code error;
  fs::remove_all(charts, error);
}

// The Secret named `name` among `secrets`.
YAML::Node SecretNamed(const std::vector<YAML::Node>& secrets, const std::string& name) {
  for (const YAML::Node& secret : secrets) {
    if (secret["metadata"]["name"].as<std::string>() == name) return secret;
  }
  FAIL("no Secret " << name);
  return {};
}

std::string Annotation(const YAML::Node& secret, const std::string& key) {
  const YAML::Node value = secret["metadata"]["annotations"][key];
  return value ? value.as<std::string>() : "";
}

std::string RenewAfter(const YAML::Node& secret) {
  return Annotation(secret, "tidepool.dev/grpc-renew-after");
}

// `time` as the chart writes it; such strings order as the times do.
std::string ChartTime(absl::Time time) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", time, absl::UTCTimeZone());
}

std::string InDays(int days) { return ChartTime(absl::Now() + absl::Hours(24 * days)); }

TEST_CASE("an upgrade renews a service certificate near its end, under the same CA") {
  auto env = Kubernetes();
  REQUIRE(env.ok());
  const std::string helm = Helm();
  const std::string charts = ChartsCopy();
  const std::string umbrella = charts + "/tidepool";
  Must({helm, "dependency", "build", umbrella});
  const std::string ns = "grpc-renewal";
  const std::vector<std::string> kubectl = {env->kubectl, "--kubeconfig", env->kubeconfig};
  (void)RunCommand(Concat(kubectl, {"delete", "namespace", ns, "--wait"}), absl::Minutes(2));
  Must(Concat(kubectl, {"create", "namespace", ns}));
  // What an install made: the chart's Secrets, in the namespace.
  const std::vector<std::string> values = Concat({"--namespace", ns}, RequiredValues("tidepool"));
  const std::vector<YAML::Node> installed =
      OfKind(Must(Concat({helm, "template", "t", umbrella}, values)).output, "Secret");
  REQUIRE(installed.size() == 6);
  const std::string file = charts + "/grpc-secrets.yaml";
  {
    std::ofstream out(file);
    for (const YAML::Node& secret : installed) out << "---\n" << Emit(secret) << "\n";
  }
  Must(Concat(kubectl, {"apply", "-n", ns, "-f", file}));
  const auto annotate = [&](const std::string& service, const std::string& value) {
    Must(Concat(kubectl, {"annotate", "-n", ns, "--overwrite", "secret", "tidepool-grpc-" + service,
                          "tidepool.dev/grpc-renew-after" + value}));
  };
  // slurm-syncer's is due; pod-scheduler's has no time (an older chart made it) and
  // config-renderer's an unreadable one: both renewed. The others are kept.
  annotate("slurm-syncer", "=2020-01-01T00:00:00Z");
  annotate("pod-scheduler", "-");
  annotate("config-renderer", "=soon");
  // The CA made lasts ten years; say it ends in 100 days, so no new certificate may last 825.
  const std::string ca_end_installed =
      Annotation(SecretNamed(installed, "tidepool-grpc-ca"), "tidepool.dev/grpc-ca-not-after");
  CHECK(ca_end_installed > InDays(3649));
  CHECK(ca_end_installed < InDays(3651));
  const auto annotate_ca = [&](const std::string& value) {
    Must(Concat(kubectl, {"annotate", "-n", ns, "--overwrite", "secret", "tidepool-grpc-ca",
                          "tidepool.dev/grpc-ca-not-after=" + value}));
  };
  const absl::Time ca_end_time = absl::Now() + absl::Hours(24 * 100);
  const std::string ca_end = ChartTime(ca_end_time);
  annotate_ca(ca_end);

  // An upgrade as helm renders it, reading the live Secrets.
  const std::vector<std::string> upgrade =
      Concat({helm, "template", "t", umbrella, "--dry-run=server", "--kubeconfig", env->kubeconfig},
             values);
  const std::vector<YAML::Node> upgraded = OfKind(Must(upgrade).output, "Secret");
  REQUIRE(upgraded.size() == 6);
  const auto data = [](const YAML::Node& secret, const char* key) {
    return secret["data"][key].as<std::string>();
  };
  const YAML::Node ca_before = SecretNamed(installed, "tidepool-grpc-ca");
  const YAML::Node ca_after = SecretNamed(upgraded, "tidepool-grpc-ca");
  CHECK(data(ca_after, "tls.crt") == data(ca_before, "tls.crt"));
  CHECK(data(ca_after, "tls.key") == data(ca_before, "tls.key"));
  CHECK(Annotation(ca_after, "tidepool.dev/grpc-ca-not-after") == ca_end);
  for (const char* service : kServices) {
    const std::string name = absl::StrCat("tidepool-grpc-", service);
    INFO(name);
    const YAML::Node before = SecretNamed(installed, name);
    const YAML::Node after = SecretNamed(upgraded, name);
    CHECK(data(after, "ca.crt") == data(ca_before, "tls.crt"));
    const bool due = std::string(service) == "slurm-syncer" ||
                     std::string(service) == "pod-scheduler" ||
                     std::string(service) == "config-renderer";
    if (due) {
      CHECK(data(after, "tls.crt") != data(before, "tls.crt"));
      CHECK(data(after, "tls.key") != data(before, "tls.key"));
      // Made to the CA's end (its whole days left), renewed 30 days before it.
      CHECK(RenewAfter(after) > InDays(68));
      CHECK(RenewAfter(after) <= ChartTime(ca_end_time - absl::Hours(24 * 30)));
    } else {
      CHECK(data(after, "tls.crt") == data(before, "tls.crt"));
      CHECK(data(after, "tls.key") == data(before, "tls.key"));
      CHECK(RenewAfter(after) == RenewAfter(before));
    }
  }
  // A renewed certificate and a kept one trust each other: same CA.
  CHECK(NodesetCallsSyncer(upgraded, charts + "/grpc-renewal", "slurm-syncer") ==
        grpc::StatusCode::OK);

  // Within renewBeforeDays of the CA's end, or with its end unreadable, the upgrade stops
  // and says what to do.
  const auto upgrade_refused = [&](const std::string& message) {
    auto result = RunCommand(upgrade, absl::Minutes(1));
    REQUIRE(result.ok());
    CAPTURE(result->output);
    CHECK(result->exit_code != 0);
    CHECK(absl::StrContains(result->output, message));
  };
  annotate_ca(InDays(20));
  upgrade_refused("within renewBeforeDays (30): delete Secret tidepool-grpc-ca in namespace " + ns +
                  " and upgrade again");
  annotate_ca("soon");
  upgrade_refused("annotation tidepool.dev/grpc-ca-not-after \"soon\" is not a time");

  // A renewal window as long as the certificate would renew on every upgrade: refused.
  const auto refused = [&](const std::vector<std::string>& set, const std::string& message) {
    const CommandResult wrong = Template(helm, umbrella, Concat(values, set));
    CAPTURE(wrong.output);
    CHECK(wrong.exit_code != 0);
    CHECK(absl::StrContains(wrong.output, message));
  };
  refused({"--set", "grpcTls.renewBeforeDays=825"}, "grpcTls.renewBeforeDays (825) must be below");
  refused({"--set", "grpcTls.validityDays=30", "--set", "grpcTls.renewBeforeDays=30"},
          "grpcTls.renewBeforeDays (30) must be below grpcTls.validityDays (30)");
  // Unset, the window is a third of a short validity: 30-day certificates install.
  const CommandResult short_lived =
      Template(helm, umbrella, Concat(values, {"--set", "grpcTls.validityDays=30"}));
  CAPTURE(short_lived.output);
  REQUIRE(short_lived.exit_code == 0);
  const YAML::Node short_secret =
      SecretNamed(OfKind(short_lived.output, "Secret"), "tidepool-grpc-slurm-syncer");
  CHECK(RenewAfter(short_secret) > InDays(19));
  CHECK(RenewAfter(short_secret) < InDays(21));
  (void)RunCommand(Concat(kubectl, {"delete", "namespace", ns, "--wait=false"}), absl::Minutes(1));
  std::error_code error;
  fs::remove_all(charts, error);
}

}  // namespace
}  // namespace tidepool::testing

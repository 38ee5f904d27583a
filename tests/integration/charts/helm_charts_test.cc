// Each service chart, the umbrella chart and the slurm-cluster chart lint cleanly, render
// objects the API server accepts (server-side dry run), and the service charts grant
// exactly the RBAC rules of manifests/rbac. Wrong values fail with a message naming the
// value, and the charts' schemas are what tools/charts/schemas writes.
#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "support/testenv.h"
#include "yaml-cpp/yaml.h"

namespace tidepool::testing {
namespace {

namespace fs = std::filesystem;

const char* const kServices[] = {"config-renderer", "slurm-syncer", "nodeset-controller",
                                 "cluster-controller", "pod-scheduler"};

// helm is built on demand (the fixtures need only the API server and kubectl).
std::string Helm() {
  auto built = RunCommand({SourceRoot() + "/tools/testenv/k8s/build", "helm"}, absl::Minutes(14));
  REQUIRE(built.ok());
  INFO(built->output);
  REQUIRE(built->exit_code == 0);
  auto dir =
      RunCommand({SourceRoot() + "/tools/testenv/k8s/build", "--print-bin-dir"}, absl::Seconds(30));
  REQUIRE(dir.ok());
  std::string path = dir->output;
  while (!path.empty() && (path.back() == '\n' || path.back() == ' ')) path.pop_back();
  return path + "/helm";
}

// What a chart needs besides its defaults: the SlurmCluster served.
std::vector<std::string> RequiredValues(const std::string& chart) {
  if (chart == "slurm-syncer" || chart == "pod-scheduler") {
    return {"--set", "slurmCluster=hpc/research"};
  }
  if (chart == "tidepool") return {"--set", "global.slurmCluster=hpc/research"};
  return {};
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
  // release's namespace, and the syncer and scheduler serve the SlurmCluster given once.
  CHECK(absl::StrContains(rendered, "--syncer_address=slurm-syncer.tidepool-system.svc:50051"));
  CHECK(
      absl::StrContains(rendered, "--renderer_address=config-renderer.tidepool-system.svc:50051"));
  CHECK(absl::StrContains(rendered, "--slurm_cluster=hpc/research"));
  CHECK(absl::StrContains(rendered, "--leader_election_namespace=tidepool-system"));
  CHECK(absl::StrContains(rendered, "kind: PodDisruptionBudget"));
  CHECK(absl::StrContains(rendered, "kind: NetworkPolicy"));
  std::error_code error;
  fs::remove_all(charts, error);
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

}  // namespace
}  // namespace tidepool::testing

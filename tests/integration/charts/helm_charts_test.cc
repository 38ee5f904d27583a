// Each service chart and the umbrella chart lint cleanly, render objects the API server
// accepts (server-side dry run), and grant exactly the RBAC rules of manifests/rbac.
#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
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
    Must({helm, "lint", chart});
    const std::string rendered =
        Must({helm, "template", "t", chart, "--namespace", "tidepool-system"}).output;
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
  Must({helm, "lint", umbrella});
  const std::string rendered =
      Must({helm, "template", "t", umbrella, "--namespace", "tidepool-system", "--include-crds"})
          .output;
  CHECK(absl::StrContains(rendered, "name: nodesets.tidepool.dev"));
  const std::string file = umbrella + "/rendered.yaml";
  std::ofstream(file) << rendered;
  Must({env->kubectl, "--kubeconfig", env->kubeconfig, "apply", "--dry-run=server", "-f", file});
  std::error_code error;
  fs::remove_all(charts, error);
}

}  // namespace
}  // namespace tidepool::testing

// The CRDs become Established, accept every sample, reject invalid resources with messages
// that name the field, show the NodeSet printer columns and scale subresource; each
// service's RBAC role can do its job and nothing it must not.
#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "support/testenv.h"

namespace tidepool::testing {
namespace {

const std::string kManifests = TIDEPOOL_MANIFESTS_DIR;

CommandResult MustKubectl(const KubernetesEnv& env, const std::vector<std::string>& args) {
  auto result = Kubectl(env, args);
  REQUIRE(result.ok());
  INFO(result->output);
  REQUIRE(result->exit_code == 0);
  return *result;
}

// Applies the CRDs, RBAC and the namespace the samples use (idempotent).
void Prepare(const KubernetesEnv& env) {
  MustKubectl(env, {"apply", "-f", kManifests + "/crds"});
  MustKubectl(env, {"wait", "--for", "condition=established", "--timeout=60s",
                    "crd/slurmclusters.tidepool.dev", "crd/nodesets.tidepool.dev"});
  MustKubectl(env, {"apply", "-f", kManifests + "/rbac/namespace.yaml"});
  MustKubectl(env, {"apply", "-f", kManifests + "/rbac"});
  auto ns = Kubectl(env, {"create", "namespace", "hpc"});
  REQUIRE(ns.ok());
}

TEST_CASE("every sample is accepted, and NodeSets print their columns and scale") {
  auto env = Kubernetes();
  REQUIRE(env.ok());
  Prepare(*env);
  MustKubectl(*env, {"apply", "-f", kManifests + "/samples/slurmcluster-research.yaml", "-f",
                     kManifests + "/samples/nodesets-research.yaml"});
  const std::string table = MustKubectl(*env, {"get", "nodesets", "-n", "hpc"}).output;
  CHECK(absl::StartsWith(table, "NAME"));
  for (const char* column : {"DESIRED", "FEASIBLE", "CURRENT", "READY", "DRAIN", "AGE"}) {
    CHECK(absl::StrContains(table, column));
  }
  CHECK(
      absl::StrContains(MustKubectl(*env, {"get", "nss", "-n", "hpc", "h200", "-o", "name"}).output,
                        "nodeset.tidepool.dev/h200"));
  MustKubectl(*env, {"scale", "nodeset", "h200", "-n", "hpc", "--replicas=3"});
  CHECK(
      MustKubectl(*env, {"get", "nodeset", "h200", "-n", "hpc", "-o", "jsonpath={.spec.replicas}"})
          .output == "3");
  // Defaults from the schema are filled in by the API server.
  CHECK(MustKubectl(*env, {"get", "nodeset", "h200", "-n", "hpc", "-o",
                           "jsonpath={.spec.slurm.reservedMemoryMiB}"})
            .output == "4096");
  CHECK(MustKubectl(*env, {"get", "slurmcluster", "research", "-n", "hpc", "-o",
                           "jsonpath={.spec.topology.plugin}"})
            .output == "tree");

  SECTION("immutable fields stay as they are") {
    auto changed = Kubectl(*env, {"patch", "slurmcluster", "research", "-n", "hpc", "--type=merge",
                                  "-p", R"({"spec":{"clusterName":"other"}})"});
    REQUIRE(changed.ok());
    CHECK(changed->exit_code != 0);
    CHECK(absl::StrContains(changed->output, "clusterName is immutable"));
  }
  MustKubectl(*env, {"delete", "-f", kManifests + "/samples/nodesets-research.yaml", "-f",
                     kManifests + "/samples/slurmcluster-research.yaml"});
}

TEST_CASE("invalid resources are rejected with a message that names the field") {
  auto env = Kubernetes();
  REQUIRE(env.ok());
  Prepare(*env);
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(TIDEPOOL_INVALID_DIR)) {
    std::ifstream file(entry.path());
    std::stringstream text;
    text << file.rdbuf();
    std::vector<std::string> expectations;
    for (absl::string_view line : absl::StrSplit(text.str(), '\n')) {
      if (absl::ConsumePrefix(&line, "# expect: ")) expectations.emplace_back(line);
    }
    CAPTURE(entry.path().filename().string());
    REQUIRE_FALSE(expectations.empty());
    auto result = Kubectl(*env, {"apply", "--dry-run=server", "-f", entry.path().string()});
    REQUIRE(result.ok());
    CAPTURE(result->output);
    CHECK(result->exit_code != 0);
    for (const std::string& expected : expectations)
      CHECK(absl::StrContains(result->output, expected));
    ++checked;
  }
  CHECK(checked == 22);
}

// `kubectl auth can-i` as a service's account: "yes" or "no".
bool Can(const KubernetesEnv& env, const std::string& service, const std::string& verb,
         const std::string& resource, const std::string& namespace_name = "hpc") {
  // "pods/binding" is resource pods with subresource binding ("pods/x" alone means the pod x).
  std::vector<std::string> args = {"auth", "can-i", verb};
  std::pair<std::string, std::string> parts = absl::StrSplit(resource, absl::MaxSplits('/', 1));
  args.push_back(parts.first);
  if (!parts.second.empty()) args.push_back("--subresource=" + parts.second);
  args.insert(args.end(), {"-n", namespace_name,
                           "--as=system:serviceaccount:tidepool-system:tidepool-" + service});
  auto result = Kubectl(env, args);
  REQUIRE(result.ok());
  // The answer is the last line; kubectl may warn before it (e.g. about cluster scope).
  std::vector<absl::string_view> lines =
      absl::StrSplit(result->output, '\n', absl::SkipWhitespace());
  REQUIRE_FALSE(lines.empty());
  const std::string answer(absl::StripAsciiWhitespace(lines.back()));
  INFO(service << " " << verb << " " << resource << ": " << answer);
  REQUIRE((answer == "yes" || answer == "no"));
  return answer == "yes";
}

TEST_CASE("each service's role allows its job and refuses the rest") {
  auto env = Kubernetes();
  REQUIRE(env.ok());
  Prepare(*env);
  CHECK_FALSE(Can(*env, "config-renderer", "get", "pods"));
  CHECK_FALSE(Can(*env, "config-renderer", "get", "secrets"));

  CHECK(Can(*env, "slurm-syncer", "patch", "pods/status"));
  CHECK(Can(*env, "slurm-syncer", "patch", "nodes/status"));
  CHECK(Can(*env, "slurm-syncer", "watch", "nodes"));
  CHECK_FALSE(Can(*env, "slurm-syncer", "update", "pods/binding"));
  CHECK_FALSE(Can(*env, "slurm-syncer", "delete", "pods"));
  // --slurm_cluster: the JWT key Secret by name, never a listing of every Secret.
  CHECK(Can(*env, "slurm-syncer", "get", "secrets"));
  CHECK_FALSE(Can(*env, "slurm-syncer", "list", "secrets"));
  CHECK_FALSE(Can(*env, "slurm-syncer", "watch", "secrets"));
  CHECK(Can(*env, "slurm-syncer", "get", "services"));
  CHECK(Can(*env, "slurm-syncer", "get", "slurmclusters.tidepool.dev"));
  CHECK_FALSE(Can(*env, "slurm-syncer", "update", "slurmclusters.tidepool.dev"));
  CHECK(Can(*env, "slurm-syncer", "watch", "nodesets.tidepool.dev"));
  CHECK_FALSE(Can(*env, "slurm-syncer", "update", "nodesets.tidepool.dev"));

  CHECK(Can(*env, "nodeset-controller", "create", "pods"));
  CHECK(Can(*env, "nodeset-controller", "delete", "pods"));
  CHECK(Can(*env, "nodeset-controller", "update", "nodesets.tidepool.dev/status"));
  CHECK(Can(*env, "nodeset-controller", "patch", "nodes"));
  CHECK(Can(*env, "nodeset-controller", "patch", "nodesets.tidepool.dev"));  // its finalizer
  CHECK_FALSE(Can(*env, "nodeset-controller", "update", "nodesets.tidepool.dev"));
  CHECK_FALSE(Can(*env, "nodeset-controller", "get", "secrets"));
  CHECK(Can(*env, "nodeset-controller", "get", "configmaps"));  // prolog/epilog scripts
  CHECK_FALSE(Can(*env, "nodeset-controller", "list", "configmaps"));

  CHECK(Can(*env, "cluster-controller", "create", "secrets"));
  CHECK(Can(*env, "cluster-controller", "update", "configmaps"));
  CHECK(Can(*env, "cluster-controller", "create", "statefulsets.apps"));
  CHECK(Can(*env, "cluster-controller", "patch", "slurmclusters.tidepool.dev/status"));
  CHECK_FALSE(Can(*env, "cluster-controller", "create", "pods"));
  CHECK_FALSE(Can(*env, "cluster-controller", "delete", "pods"));
  CHECK(Can(*env, "cluster-controller", "patch", "pods"));
  CHECK(Can(*env, "cluster-controller", "create", "persistentvolumeclaims"));
  // Only a teardown the user asked to take the claims too (tidepool.dev/delete-claims).
  CHECK(Can(*env, "cluster-controller", "delete", "persistentvolumeclaims"));
  CHECK(Can(*env, "cluster-controller", "patch", "slurmclusters.tidepool.dev"));  // finalizer
  CHECK(Can(*env, "cluster-controller", "delete", "statefulsets.apps"));
  CHECK(Can(*env, "cluster-controller", "delete", "deployments.apps"));
  CHECK(Can(*env, "cluster-controller", "create", "poddisruptionbudgets.policy"));
  CHECK_FALSE(Can(*env, "cluster-controller", "delete", "nodes"));

  CHECK(Can(*env, "pod-scheduler", "create", "pods/binding"));
  CHECK(Can(*env, "pod-scheduler", "delete", "pods"));
  CHECK_FALSE(Can(*env, "pod-scheduler", "create", "pods"));
  CHECK_FALSE(Can(*env, "pod-scheduler", "get", "secrets"));
  CHECK_FALSE(Can(*env, "pod-scheduler", "update", "nodesets.tidepool.dev"));
  CHECK(Can(*env, "pod-scheduler", "patch", "pods/status"));
  CHECK(Can(*env, "pod-scheduler", "watch", "nodesets.tidepool.dev"));
  CHECK(Can(*env, "pod-scheduler", "list", "slurmclusters.tidepool.dev"));
  // Each controller's leader-election Lease: in its own namespace only.
  for (const char* service :
       {"pod-scheduler", "slurm-syncer", "nodeset-controller", "cluster-controller"}) {
    CHECK(Can(*env, service, "update", "leases.coordination.k8s.io", "tidepool-system"));
    CHECK_FALSE(Can(*env, service, "update", "leases.coordination.k8s.io"));
    CHECK_FALSE(Can(*env, service, "create", "leases.coordination.k8s.io", "kube-system"));
  }
  CHECK_FALSE(Can(*env, "config-renderer", "get", "leases.coordination.k8s.io", "tidepool-system"));
  CHECK_FALSE(Can(*env, "pod-scheduler", "list", "nodes"));
}

}  // namespace
}  // namespace tidepool::testing

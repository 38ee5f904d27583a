// The CRDs become Established, accept every sample, reject invalid resources with messages
// that name the field, show the NodeSet printer columns and scale subresource. The RBAC:
// rbac_matrix_test.cc.
#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "manifests_env.h"
#include "support/testenv.h"

namespace tidepool::testing {
namespace {

TEST_CASE("every sample is accepted, and NodeSets print their columns and scale") {
  auto env = Kubernetes();
  REQUIRE(env.ok());
  PrepareManifests(*env);
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
  PrepareManifests(*env);
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
  CHECK(checked == 23);
}

}  // namespace
}  // namespace tidepool::testing

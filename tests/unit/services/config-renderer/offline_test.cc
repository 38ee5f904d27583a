#include "offline.h"

#include <catch2/catch_test_macros.hpp>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "k8s/yaml_documents.h"
#include "render.h"

namespace tidepool::renderer {
namespace {

std::vector<std::string> SampleObjects() {
  std::vector<std::string> objects;
  for (const char* file :
       {"slurmcluster-research.yaml", "nodesets-research.yaml", "nodes-preview.yaml"}) {
    std::ifstream in(std::string(TIDEPOOL_SAMPLES_DIR) + "/" + file);
    std::stringstream text;
    text << in.rdbuf();
    auto parsed = k8s::ObjectsAsJson(text.str());
    REQUIRE(parsed.ok());
    objects.insert(objects.end(), parsed->begin(), parsed->end());
  }
  return objects;
}

TEST_CASE("The samples render offline: membership, names, features and topology") {
  std::vector<std::string> warnings;
  auto request = RequestFromObjects(SampleObjects(), "", warnings);
  REQUIRE(request.ok());
  REQUIRE(request->members_size() == 3);
  auto response = Render(*request);
  REQUIRE(response.ok());
  const std::string slurm_conf = response->files(0).content();
  CHECK(absl::StrContains(slurm_conf,
                          "\nNodeName=gpu-h100-[01-02] CPUs=128 RealMemory=2060288 "
                          "Gres=gpu:h100:8 Feature=h100,ib,zone-us-east-1a Weight=100"));
  CHECK(absl::StrContains(slurm_conf,
                          "\nNodeName=gpu-h200-01 CPUs=192 RealMemory=2093056 "
                          "Gres=gpu:h200:8 Feature=h200,ib Weight=200"));
  CHECK(absl::StrContains(slurm_conf,
                          "\nPartitionName=gpu Nodes=gpu-h100-[01-02],gpu-h200-01 Default=YES"));
  CHECK(absl::StrContains(slurm_conf, "\nTopologyPlugin=topology/tree\n"));
  CHECK(absl::StrContains(response->files(2).content(),
                          "\nSwitchName=fab1-sp1-lg1 Nodes=gpu-h100-01\n"));
  CHECK(
      absl::StrContains(response->files(2).content(), "\nSwitchName=fab1 Switches=fab1-sp[1-2]\n"));
}

TEST_CASE("RequestFromObjects needs exactly one cluster or a name") {
  std::vector<std::string> warnings;
  CHECK(RequestFromObjects({}, "", warnings).status().message() == "the input has no SlurmCluster");
  CHECK(RequestFromObjects(SampleObjects(), "nope", warnings).status().message() ==
        "no SlurmCluster named \"nope\"");
}

TEST_CASE("Offline commands: unknown commands are usage errors, others are not commands") {
  CHECK(RunOfflineCommand({}) == std::nullopt);
  CHECK(RunOfflineCommand({"frobnicate"}) == 2);
  CHECK(RunOfflineCommand({"hostlist"}) == 2);
  CHECK(RunOfflineCommand({"render"}) == 2);
  CHECK(RunOfflineCommand({"render", "/nonexistent.yaml"}) == 1);
}

}  // namespace
}  // namespace tidepool::renderer

#include "render.h"

#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "request_fixture.h"

namespace tidepool::renderer {
namespace {

using ::tidepool::testing::Cluster;
using ::tidepool::testing::Member;
using ::tidepool::testing::NodeSet;

std::string FileOf(const tidepool::v1::RenderResponse& response, const std::string& name) {
  for (const auto& file : response.files()) {
    if (file.name() == name) return file.content();
  }
  FAIL("no file " << name);
  return "";
}

tidepool::v1::RenderRequest TwoNodeSets() {
  tidepool::v1::RenderRequest request;
  *request.mutable_cluster() = Cluster(R"("partitions": [
      {"name": "gpu", "nodeSets": ["h100"], "default": true, "maxTime": "INFINITE"},
      {"name": "all", "nodeSets": ["h100", "h200"]}],
      "slurmConfig": {"DefMemPerCPU": "4096"}, "extraConfig": "SchedulerParameters=bf_continue\n")");
  *request.add_node_sets() = NodeSet("h100", R"("slurm": {"features": ["h100"], "weight": 100})");
  *request.add_node_sets() =
      NodeSet("h200", R"("slurm": {"gres": "gpu:h200:4", "cpus": 32, "realMemoryMiB": 100000})");
  for (int i = 1; i <= 4; ++i) {
    *request.add_members() = Member("gpu-h100-0" + std::to_string(i), "h100");
  }
  *request.add_members() = Member("gpu-h200-01", "h200");
  return request;
}

TEST_CASE("Render derives node lines, partitions and GRES from the request") {
  auto response = Render(TwoNodeSets());
  REQUIRE(response.ok());
  const std::string slurm_conf = FileOf(*response, "slurm.conf");
  CHECK(absl::StrContains(slurm_conf,
                          "\nNodeName=gpu-h100-[01-04] CPUs=64 RealMemory=258048 Gres=gpu:h100:8 "
                          "Feature=h100 Weight=100 State=UNKNOWN\n"));
  CHECK(absl::StrContains(slurm_conf,
                          "\nNodeName=gpu-h200-01 CPUs=32 RealMemory=100000 "
                          "Gres=gpu:h200:4 State=UNKNOWN\n"));
  CHECK(absl::StrContains(slurm_conf,
                          "\nPartitionName=gpu Nodes=gpu-h100-[01-04] Default=YES "
                          "MaxTime=INFINITE State=UP\n"));
  CHECK(absl::StrContains(slurm_conf,
                          "\nPartitionName=all Nodes=gpu-h100-[01-04],gpu-h200-01 State=UP\n"));
  CHECK(absl::StrContains(
      slurm_conf,
      "\nClusterName=research\nSlurmctldHost=research-controller-0(research-controller-0.research-"
      "controller)\n"));
  CHECK(absl::StrContains(slurm_conf, "\nGresTypes=gpu\n"));
  CHECK(absl::StrContains(slurm_conf, "\nDefMemPerCPU=4096\n"));
  CHECK(absl::StrContains(slurm_conf, "\n# extraConfig\nSchedulerParameters=bf_continue\n"));
  const std::string gres_conf = FileOf(*response, "gres.conf");
  CHECK(absl::StrContains(gres_conf,
                          "\nNodeName=gpu-h100-[01-04] Name=gpu Type=h100 "
                          "File=/dev/nvidia[0-7] Count=8\n"));
  CHECK(absl::StrContains(gres_conf,
                          "\nNodeName=gpu-h200-01 Name=gpu Type=h200 "
                          "File=/dev/nvidia[0-3] Count=4\n"));
  CHECK(response->nodes() == 5);
  CHECK(response->partitions() == 2);
  CHECK(response->config_hash().rfind("sha256:", 0) == 0);
}

TEST_CASE("Render gives a member the attributes its pod was made with, when it has its own") {
  tidepool::v1::RenderRequest request = TwoNodeSets();
  // gpu-h100-02's pod predates a change of the NodeSet to 32 CPUs and 4 GPUs: it keeps 64 and
  // 8 until the rolling update has drained and replaced it.
  for (auto& node_set : *request.mutable_node_sets()) {
    if (node_set.metadata().name() != "h100") continue;
    *request.mutable_members(1)->mutable_slurm() = node_set.spec().slurm();
    node_set.mutable_spec()->mutable_slurm()->set_cpus(32);
    node_set.mutable_spec()->mutable_slurm()->set_gres("gpu:h100:4");
  }
  auto response = Render(request);
  INFO(response.status().ToString());
  REQUIRE(response.ok());
  const std::string slurm_conf = FileOf(*response, "slurm.conf");
  CHECK(absl::StrContains(slurm_conf,
                          "\nNodeName=gpu-h100-[01,03-04] CPUs=32 RealMemory=258048 "
                          "Gres=gpu:h100:4 Feature=h100 Weight=100 State=UNKNOWN\n"));
  CHECK(absl::StrContains(slurm_conf,
                          "\nNodeName=gpu-h100-02 CPUs=64 RealMemory=258048 Gres=gpu:h100:8 "
                          "Feature=h100 Weight=100 State=UNKNOWN\n"));
  CHECK(absl::StrContains(FileOf(*response, "gres.conf"),
                          "\nNodeName=gpu-h100-02 Name=gpu Type=h100 File=/dev/nvidia[0-7] "
                          "Count=8\n"));
  // Still in the NodeSet's partitions.
  CHECK(absl::StrContains(slurm_conf, "\nPartitionName=gpu Nodes=gpu-h100-[01-04] "));
}

TEST_CASE("Render lists each node as slurmctld will describe it after loading the files") {
  auto response = Render(TwoNodeSets());
  REQUIRE(response.ok());
  REQUIRE(response->loaded_nodes_size() == 5);
  const tidepool::v1::LoadedNode& h100 = response->loaded_nodes(0);
  CHECK(h100.name() == "gpu-h100-01");
  CHECK(h100.cpus() == 64);
  CHECK(h100.real_memory_mib() == 258048);
  CHECK(std::vector<std::string>(h100.partitions().begin(), h100.partitions().end()) ==
        std::vector<std::string>{"all", "gpu"});
  const tidepool::v1::LoadedNode& h200 = response->loaded_nodes(4);
  CHECK(h200.name() == "gpu-h200-01");
  CHECK(h200.cpus() == 32);
  CHECK(std::vector<std::string>(h200.partitions().begin(), h200.partitions().end()) ==
        std::vector<std::string>{"all"});
}

TEST_CASE("Render output and hash do not depend on the order of members and NodeSets") {
  tidepool::v1::RenderRequest request = TwoNodeSets();
  const auto first = Render(request);
  REQUIRE(first.ok());
  std::mt19937 random(7);
  std::shuffle(request.mutable_members()->begin(), request.mutable_members()->end(), random);
  std::reverse(request.mutable_node_sets()->begin(), request.mutable_node_sets()->end());
  const auto second = Render(request);
  REQUIRE(second.ok());
  CHECK(first->config_hash() == second->config_hash());
  CHECK(FileOf(*first, "slurm.conf") == FileOf(*second, "slurm.conf"));
}

TEST_CASE("Render changes the hash when an input changes") {
  tidepool::v1::RenderRequest request = TwoNodeSets();
  const auto before = Render(request);
  *request.add_members() = Member("gpu-h100-05", "h100");
  const auto after = Render(request);
  REQUIRE(before.ok());
  REQUIRE(after.ok());
  CHECK(before->config_hash() != after->config_hash());
  CHECK(absl::StrContains(FileOf(*after, "slurm.conf"), "NodeName=gpu-h100-[01-05]"));
}

TEST_CASE("Without partitions every node lands in a default partition named all") {
  tidepool::v1::RenderRequest request;
  *request.mutable_cluster() = Cluster();
  *request.add_node_sets() = NodeSet("h100");
  *request.add_members() = Member("h100-01", "h100");
  auto response = Render(request);
  REQUIRE(response.ok());
  CHECK(absl::StrContains(
      FileOf(*response, "slurm.conf"),
      "\nPartitionName=all Nodes=h100-01 Default=YES MaxTime=INFINITE State=UP\n"));
}

struct BadInput {
  const char* what;
  std::function<void(tidepool::v1::RenderRequest&)> change;
  const char* expected_prefix;
};

TEST_CASE("Render refuses bad input with a message that names the field") {
  const std::vector<BadInput> cases = {
      {"cluster name",
       [](auto& r) { r.mutable_cluster()->mutable_spec()->set_cluster_name("Research Cluster"); },
       "SlurmCluster hpc/research: spec.clusterName: \"Research Cluster\" must be lower case"},
      {"owned slurm.conf key",
       [](auto& r) {
         (*r.mutable_cluster()->mutable_spec()->mutable_slurm_config())["ClusterName"] = "x";
       },
       "SlurmCluster hpc/research: spec.slurmConfig: ClusterName is set by Tidepool"},
      {"extraConfig",
       [](auto& r) {
         r.mutable_cluster()->mutable_spec()->set_extra_config("NodeName=evil CPUs=1\n");
       },
       "SlurmCluster hpc/research: spec.extraConfig line 1: NodeName is set by Tidepool"},
      {"GRES",
       [](auto& r) { r.mutable_node_sets(1)->mutable_spec()->mutable_slurm()->set_gres("gpu:8x"); },
       "NodeSet hpc/h200: spec.slurm.gres: \"gpu:8x\" is not name:type:count"},
      {"a member's own attributes",
       [](auto& r) { r.mutable_members(1)->mutable_slurm()->set_gres("gpu:8x"); },
       "members[1] (gpu-h100-02): slurm.gres: \"gpu:8x\" is not name:type:count"},
      {"unknown slurm.conf key",
       [](auto& r) {
         (*r.mutable_cluster()->mutable_spec()->mutable_slurm_config())["DefMemPerCpus"] = "1";
       },
       "SlurmCluster hpc/research: spec.slurmConfig: DefMemPerCpus is not a key Slurm knows (did "
       "you mean DefMemPerCPU?)"},
      {"partition maxTime",
       [](auto& r) {
         r.mutable_cluster()->mutable_spec()->mutable_partitions(0)->set_max_time("1-24:00");
       },
       "SlurmCluster hpc/research: spec.partitions[0].maxTime: \"1-24:00\" is not a Slurm time "
       "limit"},
      {"controller replicas",
       [](auto& r) { r.mutable_cluster()->mutable_spec()->mutable_controller()->set_replicas(3); },
       "SlurmCluster hpc/research: spec.controller.replicas: 3 is not 1 or 2"},
      {"topology plugin",
       [](auto& r) { r.mutable_cluster()->mutable_spec()->mutable_topology()->set_plugin("mesh"); },
       "SlurmCluster hpc/research: spec.topology.plugin: \"mesh\" is not one of none, tree, block"},
      {"duplicate Slurm name", [](auto& r) { *r.add_members() = Member("gpu-h100-01", "h100"); },
       "members[5]: slurmNodeName: \"gpu-h100-01\" is used twice"},
      {"member of an unknown NodeSet", [](auto& r) { *r.add_members() = Member("gpu-x-01", "x"); },
       "members[5]: nodeSet: \"x\" is not in the request"},
      {"NodeSet of another cluster",
       [](auto& r) {
         r.mutable_node_sets(0)->mutable_spec()->mutable_cluster_ref()->set_name("other");
       },
       "NodeSet hpc/h100: spec.clusterRef.name: \"other\" is not this cluster"},
      {"partition line key",
       [](auto& r) {
         (*r.mutable_cluster()->mutable_spec()->mutable_partitions(0)->mutable_config())["Nodes"] =
             "ALL";
       },
       "SlurmCluster hpc/research: spec.partitions[0].config: extra PartitionName settings: Nodes "
       "is set by Tidepool"},
      {"memory reservation larger than the node",
       [](auto& r) {
         r.mutable_node_sets(0)->mutable_spec()->mutable_slurm()->set_reserved_memory_mib(300000);
       },
       "member gpu-h100-01 (Node k8s-gpu-h100-01): allocatable memory 256Gi leaves nothing"},
  };
  for (const BadInput& bad : cases) {
    CAPTURE(bad.what);
    tidepool::v1::RenderRequest request = TwoNodeSets();
    bad.change(request);
    const auto response = Render(request);
    REQUIRE_FALSE(response.ok());
    CAPTURE(response.status().message());
    CHECK(response.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(response.status().message()).rfind(bad.expected_prefix, 0) == 0);
  }
}

TEST_CASE("Render warns about feature labels a Node lacks and partitions of missing NodeSets") {
  tidepool::v1::RenderRequest request = TwoNodeSets();
  (*request.mutable_node_sets(0)
        ->mutable_spec()
        ->mutable_slurm()
        ->mutable_feature_labels())["topology.kubernetes.io/zone"] = "zone-";
  *request.mutable_members(0) =
      Member("gpu-h100-01", "h100", R"("topology.kubernetes.io/zone": "us-east-1a")");
  request.mutable_cluster()->mutable_spec()->mutable_partitions(1)->add_node_sets("b200");
  auto response = Render(request);
  REQUIRE(response.ok());
  CHECK(absl::StrContains(FileOf(*response, "slurm.conf"),
                          "NodeName=gpu-h100-01 CPUs=64 RealMemory=258048 Gres=gpu:h100:8 "
                          "Feature=h100,zone-us-east-1a"));
  const auto& warnings = response->warnings();
  CHECK(std::count_if(warnings.begin(), warnings.end(), [](const std::string& w) {
          return absl::StrContains(w, "has no label topology.kubernetes.io/zone");
        }) == 3);
  CHECK(std::count_if(warnings.begin(), warnings.end(), [](const std::string& w) {
          return w == "partition all names NodeSet b200, which does not exist (yet)";
        }) == 1);
}

TEST_CASE("Render reports warnings and errors in name order whatever the members' order") {
  tidepool::v1::RenderRequest request = TwoNodeSets();
  (*request.mutable_node_sets(0)
        ->mutable_spec()
        ->mutable_slurm()
        ->mutable_feature_labels())["topology.kubernetes.io/zone"] = "zone-";
  std::reverse(request.mutable_members()->begin(), request.mutable_members()->end());
  const auto response = Render(request);
  REQUIRE(response.ok());
  std::vector<std::string> lacking;
  for (const std::string& warning : response->warnings()) {
    if (absl::StrContains(warning, "has no label")) {
      lacking.push_back(warning.substr(0, warning.find(" (")));
    }
  }
  CHECK(lacking == std::vector<std::string>{"Node k8s-gpu-h100-01", "Node k8s-gpu-h100-02",
                                            "Node k8s-gpu-h100-03", "Node k8s-gpu-h100-04"});

  request.mutable_node_sets(0)->mutable_spec()->mutable_slurm()->set_reserved_memory_mib(300000);
  const auto failed = Render(request);
  REQUIRE_FALSE(failed.ok());
  CHECK(absl::StartsWith(failed.status().message(), "member gpu-h100-01 "));
}

TEST_CASE("Render with AutoDetect and environment overrides") {
  tidepool::v1::RenderRequest request = TwoNodeSets();
  request.mutable_cluster()->mutable_spec()->mutable_gres()->set_auto_detect("nvidia");
  request.mutable_environment()->add_controller_hosts("ctl-host");
  request.mutable_environment()->set_cgroup_plugin("disabled");
  auto response = Render(request);
  REQUIRE(response.ok());
  CHECK(absl::StrContains(FileOf(*response, "gres.conf"), "\nAutoDetect=nvidia\n"));
  CHECK(absl::StrContains(FileOf(*response, "slurm.conf"), "\nSlurmctldHost=ctl-host\n"));
  CHECK(absl::StrContains(FileOf(*response, "cgroup.conf"), "\nCgroupPlugin=disabled\n"));
}

}  // namespace
}  // namespace tidepool::renderer

namespace tidepool::renderer {
namespace {

TEST_CASE("Render takes GPU device files from the environment's prefix") {
  tidepool::v1::RenderRequest request;
  *request.mutable_cluster() = testing::Cluster();
  *request.add_node_sets() = testing::NodeSet("h100");
  *request.add_members() = testing::Member("h100-01", "h100");
  request.mutable_environment()->set_gpu_device_prefix("/etc/slurm/fake-nvidia");
  auto response = Render(request);
  REQUIRE(response.ok());
  CHECK(absl::StrContains(response->files(1).content(),
                          "\nNodeName=h100-01 Name=gpu Type=h100 File=/etc/slurm/fake-nvidia[0-7] "
                          "Count=8\n"));
}

TEST_CASE("prolog and epilog run through runners that take the scripts in name order") {
  tidepool::v1::RenderRequest request = TwoNodeSets();
  *request.mutable_cluster() = Cluster(R"("prolog": {"configMap": "research-prolog"},
      "epilog": {"configMap": "research-epilog"})");
  const tidepool::v1::RenderResponse rendered = Render(request).value();
  const std::string conf = FileOf(rendered, "slurm.conf");
  CHECK(absl::StrContains(conf, "\nProlog=/etc/tidepool/hooks/prolog\n"));
  CHECK(absl::StrContains(conf, "\nEpilog=/etc/tidepool/hooks/epilog\n"));
  const std::string prolog = FileOf(rendered, "prolog");
  CHECK(absl::StartsWith(prolog, "#!/bin/sh\n"));
  CHECK(absl::StrContains(prolog, "export LC_ALL=C\nfor script in /etc/slurm/prolog.d/*; do\n"));
  CHECK(absl::StrContains(prolog, "\"$script\" || exit\n"));
  CHECK(absl::StrContains(FileOf(rendered, "epilog"), "/etc/slurm/epilog.d/*"));

  SECTION("the environment moves the scripts' directory") {
    request.mutable_environment()->set_prolog_dir("/site/prolog.d");
    CHECK(absl::StrContains(FileOf(Render(request).value(), "prolog"), "/site/prolog.d/*"));
  }
  SECTION("without scripts there are no runners and no Prolog line") {
    *request.mutable_cluster() = Cluster("");
    const tidepool::v1::RenderResponse plain = Render(request).value();
    CHECK(plain.files_size() == 4);
    CHECK_FALSE(absl::StrContains(FileOf(plain, "slurm.conf"), "Prolog="));
  }
}

}  // namespace
}  // namespace tidepool::renderer

namespace tidepool::renderer {
namespace {

TEST_CASE("Configless adds enable_configless, keeping the user's SlurmctldParameters") {
  tidepool::v1::RenderRequest request = TwoNodeSets();
  REQUIRE(Render(request).ok());
  CHECK_FALSE(absl::StrContains(FileOf(*Render(request), "slurm.conf"), "enable_configless"));

  request.mutable_environment()->set_configless(true);
  CHECK(absl::StrContains(FileOf(*Render(request), "slurm.conf"),
                          "\nSlurmctldParameters=enable_configless\n"));

  auto& settings = *request.mutable_cluster()->mutable_spec()->mutable_slurm_config();
  settings["SlurmctldParameters"] = "idle_on_node_suspend";
  CHECK(absl::StrContains(FileOf(*Render(request), "slurm.conf"),
                          "\nSlurmctldParameters=idle_on_node_suspend,enable_configless\n"));

  settings["SlurmctldParameters"] = "enable_configless,idle_on_node_suspend";
  const std::string conf = FileOf(*Render(request), "slurm.conf");
  CHECK(absl::StrContains(conf, "\nSlurmctldParameters=enable_configless,idle_on_node_suspend\n"));
  CHECK(conf.find("SlurmctldParameters") == conf.rfind("SlurmctldParameters"));
}

}  // namespace
}  // namespace tidepool::renderer

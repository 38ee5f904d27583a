// slurmctld and slurmd started from files the config-renderer wrote: Slurm must report
// exactly the CPUs, memory, GRES, features, weights, partitions and switches of the input,
// and new members must appear after a re-render and a reconfigure, without a restart.
#include <catch2/catch_test_macros.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "render.h"
#include "support/testenv.h"
#include "tidepool/resources.h"

namespace tidepool::testing {
namespace {

using Fields = std::map<std::string, std::string>;

std::string Suite() {
  const char* suite = std::getenv("TIDEPOOL_SLURM_SUITE");
  return suite == nullptr || *suite == '\0' ? "sid" : suite;
}

CommandResult Script(const std::string& name, std::vector<std::string> args,
                     absl::Duration timeout = absl::Minutes(10)) {
  args.insert(args.begin(), SourceRoot() + "/tools/testenv/slurm/" + name);
  auto result = RunCommand(args, timeout);
  REQUIRE(result.ok());
  INFO(result->output);
  REQUIRE(result->exit_code == 0);
  return *result;
}

tidepool::v1::MemberNode Member(const std::string& slurm_name, const std::string& node_set,
                                const std::string& labels, const std::string& allocatable) {
  tidepool::v1::MemberNode member;
  member.set_slurm_node_name(slurm_name);
  member.set_node_set(node_set);
  *member.mutable_node() =
      api::ParseNode(R"({"kind": "Node", "metadata": {"name": "k8s-)" + slurm_name +
                     R"(", "labels": {)" + labels + R"(}}, "status": {"allocatable": {)" +
                     allocatable + "}}}")
          .value();
  return member;
}

std::string Path(const std::string& fabric, const std::string& superpod, const std::string& leaf) {
  return R"("ib.coreweave.cloud/fabric": ")" + fabric + R"(", "ib.coreweave.cloud/superpod": ")" +
         superpod + R"(", "ib.coreweave.cloud/leafgroup": ")" + leaf + "\"";
}

constexpr char kGpuNode[] = R"("cpu": "64", "memory": "256Gi", "nvidia.com/gpu": "4")";

tidepool::v1::RenderRequest Request() {
  tidepool::v1::RenderRequest request;
  *request.mutable_cluster() = api::ParseSlurmCluster(R"({
      "apiVersion": "tidepool.dev/v1alpha1", "kind": "SlurmCluster",
      "metadata": {"name": "tpit", "namespace": "hpc"},
      "spec": {"clusterName": "tpit",
               "partitions": [{"name": "gpu", "nodeSets": ["alpha"], "default": true},
                              {"name": "cpu", "nodeSets": ["beta"], "maxTime": "60"}],
               "slurmConfig": {"SlurmdParameters": "config_overrides"},
               "topology": {"plugin": "tree"}}})")
                                   .value();
  *request.add_node_sets() = api::ParseNodeSet(R"({
      "apiVersion": "tidepool.dev/v1alpha1", "kind": "NodeSet",
      "metadata": {"name": "alpha", "namespace": "hpc"},
      "spec": {"clusterRef": {"name": "tpit"}, "namePrefix": "ta",
               "slurm": {"features": ["h100", "ib"]}}})")
                                 .value();
  *request.add_node_sets() = api::ParseNodeSet(R"({
      "apiVersion": "tidepool.dev/v1alpha1", "kind": "NodeSet",
      "metadata": {"name": "beta", "namespace": "hpc"},
      "spec": {"clusterRef": {"name": "tpit"}, "namePrefix": "tb",
               "slurm": {"features": ["cpu"], "cpus": 8, "realMemoryMiB": 4000, "weight": 50,
                         "featureLabels": {"topology.kubernetes.io/zone": "zone-"}}}})")
                                 .value();
  const std::string gpu_product = R"("nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", )";
  *request.add_members() = Member("ta-01", "alpha", gpu_product + Path("f1", "s1", "l1"), kGpuNode);
  *request.add_members() = Member("ta-02", "alpha", gpu_product + Path("f1", "s1", "l1"), kGpuNode);
  *request.add_members() =
      Member("tb-01", "beta", R"("topology.kubernetes.io/zone": "z1", )" + Path("f1", "s2", "l1"),
             R"("cpu": "16", "memory": "64Gi")");
  request.mutable_environment()->set_cgroup_plugin("disabled");
  // No GPUs here: placeholder device files travel with the config into /etc/slurm.
  request.mutable_environment()->set_gpu_device_prefix("/etc/slurm/fake-nvidia");
  return request;
}

std::string RenderTo(const tidepool::v1::RenderRequest& request, const std::string& dir) {
  auto response = renderer::Render(request);
  REQUIRE(response.ok());
  std::filesystem::create_directories(dir);
  for (const auto& file : response->files()) {
    std::ofstream out(dir + "/" + file.name());
    out << file.content();
    REQUIRE(out.good());
  }
  for (int gpu = 0; gpu < 4; ++gpu) std::ofstream(dir + "/fake-nvidia" + std::to_string(gpu));
  return response->config_hash();
}

// "scontrol show -o" lines as key=value fields (values with spaces are cut, not needed here).
std::map<std::string, Fields> ShowOneLiners(const SlurmEnv& env, const std::string& what,
                                            const std::string& name_key) {
  auto result = SlurmExec(env, {"scontrol", "show", "-o", what});
  REQUIRE(result.ok());
  REQUIRE(result->exit_code == 0);
  std::map<std::string, Fields> objects;
  for (absl::string_view line : absl::StrSplit(result->output, '\n', absl::SkipEmpty())) {
    Fields fields;
    for (absl::string_view token : absl::StrSplit(line, ' ', absl::SkipEmpty())) {
      std::pair<std::string, std::string> kv = absl::StrSplit(token, absl::MaxSplits('=', 1));
      fields.insert(kv);
    }
    objects[fields[name_key]] = fields;
  }
  return objects;
}

std::string Topology(const SlurmEnv& env) {
  auto result = SlurmExec(env, {"scontrol", "show", "topology"});
  REQUIRE(result.ok());
  REQUIRE(result->exit_code == 0);
  return result->output;
}

bool HasLine(const std::string& text, const std::vector<std::string>& parts) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    bool all = true;
    for (const std::string& part : parts) all = all && absl::StrContains(line, part);
    if (all) return true;
  }
  return false;
}

bool AwaitIdle(const SlurmEnv& env, const std::string& node) {
  const absl::Time deadline = absl::Now() + absl::Seconds(90);
  while (absl::Now() < deadline) {
    auto nodes = ShowOneLiners(env, "node", "NodeName");
    if (nodes.contains(node) && nodes[node]["State"] == "IDLE") return true;
    absl::SleepFor(absl::Milliseconds(500));
  }
  return false;
}

SlurmEnv LoadEnv() {
  auto vars = ReadEnvFile(TestenvRunDir() + "/slurm/env");
  REQUIRE(vars.ok());
  auto env = SlurmEnvFromVars(*vars);
  REQUIRE(env.ok());
  return *env;
}

TEST_CASE("slurmctld runs from rendered files and reports exactly what was rendered") {
  const std::string work = "/tmp/tidepool-rendered-config-test";
  std::filesystem::remove_all(work);
  tidepool::v1::RenderRequest request = Request();
  RenderTo(request, work + "/first");
  Script("down", {});
  Script("up", {"--suite", Suite(), "--config-dir", work + "/first"});
  const SlurmEnv env = LoadEnv();
  CHECK(env.cluster == "tpit");
  REQUIRE(env.node_names == std::vector<std::string>{"ta-01", "ta-02", "tb-01"});

  auto nodes = ShowOneLiners(env, "node", "NodeName");
  CHECK(nodes["ta-01"]["CPUTot"] == "64");
  CHECK(nodes["ta-01"]["RealMemory"] == "258048");
  CHECK(nodes["ta-01"]["Gres"] == "gpu:h100:4");
  CHECK(nodes["ta-01"]["AvailableFeatures"] == "h100,ib");
  CHECK(nodes["ta-01"]["Partitions"] == "gpu");
  CHECK(nodes["ta-01"]["State"] == "IDLE");
  CHECK(nodes["ta-02"]["Gres"] == "gpu:h100:4");
  CHECK(nodes["tb-01"]["CPUTot"] == "8");
  CHECK(nodes["tb-01"]["RealMemory"] == "4000");
  CHECK(nodes["tb-01"]["Weight"] == "50");
  CHECK(nodes["tb-01"]["AvailableFeatures"] == "cpu,zone-z1");
  CHECK(nodes["tb-01"]["Gres"] == "(null)");
  CHECK(nodes["tb-01"]["Partitions"] == "cpu");

  auto partitions = ShowOneLiners(env, "partition", "PartitionName");
  CHECK(partitions["gpu"]["Nodes"] == "ta-[01-02]");
  CHECK(partitions["gpu"]["Default"] == "YES");
  CHECK(partitions["cpu"]["Nodes"] == "tb-01");
  CHECK(partitions["cpu"]["MaxTime"] == "01:00:00");

  const std::string topology = Topology(env);
  INFO(topology);
  CHECK(HasLine(topology, {"SwitchName=f1-s1-l1 ", "Nodes=ta-[01-02]"}));
  CHECK(HasLine(topology, {"SwitchName=f1-s2-l1 ", "Nodes=tb-01"}));
  CHECK(HasLine(topology, {"SwitchName=f1 ", "Switches=f1-s[1-2]"}));

  SECTION("a new member appears after re-render and reconfigure, without a restart") {
    *request.add_members() =
        Member("ta-03", "alpha",
               R"("nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", )" + Path("f1", "s2", "l2"),
               kGpuNode);
    RenderTo(request, work + "/second");
    Script("reconfigure", {"--config-dir", work + "/second"});
    REQUIRE(AwaitIdle(env, "ta-03"));
    auto grown = ShowOneLiners(env, "node", "NodeName");
    CHECK(grown["ta-03"]["Gres"] == "gpu:h100:4");
    CHECK(grown["ta-03"]["Partitions"] == "gpu");
    CHECK(grown["ta-01"]["State"] == "IDLE");
    CHECK(ShowOneLiners(env, "partition", "PartitionName")["gpu"]["Nodes"] == "ta-[01-03]");
    const std::string new_topology = Topology(env);
    INFO(new_topology);
    CHECK(HasLine(new_topology, {"SwitchName=f1-s2-l2 ", "Nodes=ta-03"}));
  }
  Script("down", {});
}

}  // namespace
}  // namespace tidepool::testing

namespace tidepool::testing {
namespace {

TEST_CASE("block topology from the NVLink-domain label reaches slurmctld") {
  const std::string dir = "/tmp/tidepool-rendered-block-test";
  std::filesystem::remove_all(dir);
  tidepool::v1::RenderRequest request = Request();
  auto* topology = request.mutable_cluster()->mutable_spec()->mutable_topology();
  topology->set_plugin("block");
  topology->add_block_sizes(1);
  topology->add_block_sizes(2);
  const char* domains[] = {"nvl-a", "nvl-a", "nvl-b"};
  for (int i = 0; i < request.members_size(); ++i) {
    (*request.mutable_members(i)
          ->mutable_node()
          ->mutable_metadata()
          ->mutable_labels())["ds.coreweave.com/nvlink.domain"] = domains[i];
  }
  RenderTo(request, dir);
  Script("down", {});
  Script("up", {"--suite", Suite(), "--config-dir", dir});
  const SlurmEnv env = LoadEnv();
  const std::string topology_text = Topology(env);
  INFO(topology_text);
  CHECK(HasLine(topology_text, {"BlockName=nvl-a ", "Nodes=ta-[01-02]"}));
  CHECK(HasLine(topology_text, {"BlockName=nvl-b ", "Nodes=tb-01"}));
  CHECK(ShowOneLiners(env, "node", "NodeName")["tb-01"]["State"] == "IDLE");
  Script("down", {});
}

}  // namespace
}  // namespace tidepool::testing

#include "slurm/conf/writers.h"

#include <catch2/catch_test_macros.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace tidepool::slurm {
namespace {

NodeConfig GpuNode(const std::string& name) {
  return NodeConfig{.name = name,
                    .cpus = 64,
                    .real_memory_mib = 512000,
                    .features = {"h100", "ib"},
                    .gres = "gpu:h100:8",
                    .weight = 100};
}

SlurmConf SmallCluster() {
  SlurmConf conf;
  conf.cluster_name = "research";
  conf.controllers = {{.hostname = "research-controller-0", .address = ""}};
  conf.gres_types = {"gpu"};
  for (int i = 1; i <= 8; ++i) conf.nodes.push_back(GpuNode(absl::StrCat("gpu-h100-0", i)));
  NodeConfig cpu{.name = "cpu-01", .cpus = 32, .real_memory_mib = 128000};
  conf.nodes.push_back(cpu);
  conf.partitions.push_back(PartitionConfig{.name = "gpu",
                                            .nodes = {"gpu-h100-01", "gpu-h100-02"},
                                            .is_default = true,
                                            .max_time = "INFINITE",
                                            .extra = {{"OverSubscribe", "NO"}}});
  return conf;
}

TEST_CASE("WriteSlurmConf groups identical nodes into one compressed line") {
  const std::string text = WriteSlurmConf(SmallCluster()).value();
  CHECK(absl::StrContains(text,
                          "\nNodeName=gpu-h100-[01-08] CPUs=64 RealMemory=512000 Gres=gpu:h100:8 "
                          "Feature=h100,ib Weight=100 State=UNKNOWN\n"));
  CHECK(absl::StrContains(text, "\nNodeName=cpu-01 CPUs=32 RealMemory=128000 State=UNKNOWN\n"));
  CHECK(absl::StrContains(text,
                          "\nPartitionName=gpu Nodes=gpu-h100-[01-02] Default=YES "
                          "MaxTime=INFINITE OverSubscribe=NO State=UP\n"));
  CHECK(absl::StrContains(text, "\nClusterName=research\nSlurmctldHost=research-controller-0\n"));
  CHECK(absl::StrContains(text, "\nGresTypes=gpu\n"));
}

TEST_CASE("WriteSlurmConf puts nodes on one line when their attributes print the same") {
  SlurmConf conf;
  conf.cluster_name = "research";
  conf.nodes = {NodeConfig{.name = "n1", .features = {"a,b"}},
                NodeConfig{.name = "n2", .features = {"a", "b"}},
                NodeConfig{.name = "n3", .features = {"a"}},
                NodeConfig{.name = "n4", .features = {"a,b"}}};
  const std::string text = WriteSlurmConf(conf).value();
  CHECK(absl::StrContains(text,
                          "\n# Nodes\nNodeName=n[1-2,4] Feature=a,b State=UNKNOWN\n"
                          "NodeName=n3 Feature=a State=UNKNOWN\n"));
}

TEST_CASE("WriteGresConf groups nodes with equal GRES into one line, in first-seen order") {
  GresConf conf;
  conf.nodes = {NodeGres{.node = "g2", .type = "h100", .count = 8},
                NodeGres{.node = "c1", .name = "mps", .count = 100, .device_prefix = ""},
                NodeGres{.node = "g1", .type = "h100", .count = 8}};
  const std::string text = WriteGresConf(conf).value();
  CHECK(absl::StrContains(text,
                          "\nNodeName=g[1-2] Name=gpu Type=h100 File=/dev/nvidia[0-7] "
                          "Count=8\nNodeName=c1 Name=mps Count=100\n"));
}

TEST_CASE("WriteSlurmConf is deterministic") {
  CHECK(WriteSlurmConf(SmallCluster()).value() == WriteSlurmConf(SmallCluster()).value());
}

TEST_CASE("WriteSlurmConf returns only unresponsive DOWN nodes to service unless told") {
  // A person's DOWN must survive slurmd and slurmctld restarts (each reconfigure).
  CHECK(absl::StrContains(WriteSlurmConf(SmallCluster()).value(), "\nReturnToService=1\n"));
  SlurmConf conf = SmallCluster();
  conf.user_settings = {{"ReturnToService", "2"}};
  const std::string text = WriteSlurmConf(conf).value();
  CHECK_FALSE(absl::StrContains(text, "ReturnToService=1"));
  CHECK(absl::StrContains(text, "\nReturnToService=2\n"));
}

TEST_CASE("WriteSlurmConf lets user settings replace Tidepool's defaults, once") {
  SlurmConf conf = SmallCluster();
  conf.user_settings = {{"ProctrackType", "proctrack/linuxproc"}, {"DefMemPerCPU", "4096"}};
  conf.extra_config = "TaskPlugin=task/none";
  const std::string text = WriteSlurmConf(conf).value();
  CHECK_FALSE(absl::StrContains(text, "ProctrackType=proctrack/cgroup"));
  CHECK(absl::StrContains(text, "\nProctrackType=proctrack/linuxproc\n"));
  CHECK_FALSE(absl::StrContains(text, "TaskPlugin=task/cgroup"));
  CHECK(absl::StrContains(text, "\n# extraConfig\nTaskPlugin=task/none\n"));
  CHECK(absl::StrContains(text, "\nDefMemPerCPU=4096\n"));
}

TEST_CASE("WriteSlurmConf writes JWT, accounting and controller addresses when set") {
  SlurmConf conf = SmallCluster();
  conf.jwt_key_path = "/etc/slurm/jwt.key";
  conf.controllers.push_back({.hostname = "backup", .address = "10.0.0.2"});
  conf.accounting = {.storage_type = "accounting_storage/slurmdbd", .host = "dbd", .port = 6819};
  const std::string text = WriteSlurmConf(conf).value();
  CHECK(absl::StrContains(
      text, "\nAuthAltTypes=auth/jwt\nAuthAltParameters=jwt_key=/etc/slurm/jwt.key\n"));
  CHECK(absl::StrContains(text, "\nSlurmctldHost=backup(10.0.0.2)\n"));
  CHECK(absl::StrContains(text,
                          "\nAccountingStorageType=accounting_storage/slurmdbd\n"
                          "AccountingStorageHost=dbd\nAccountingStoragePort=6819\n"));
}

TEST_CASE("WriteGresConf groups nodes and lists device files") {
  GresConf conf;
  for (int i = 1; i <= 4; ++i) {
    conf.nodes.push_back({.node = absl::StrCat("gpu-0", i), .type = "h100", .count = 8});
  }
  conf.nodes.push_back({.node = "gpu-05", .type = "a100", .count = 1});
  const std::string text = WriteGresConf(conf).value();
  CHECK(absl::StrContains(
      text, "\nNodeName=gpu-[01-04] Name=gpu Type=h100 File=/dev/nvidia[0-7] Count=8\n"));
  CHECK(
      absl::StrContains(text, "\nNodeName=gpu-05 Name=gpu Type=a100 File=/dev/nvidia0 Count=1\n"));
}

TEST_CASE("WriteGresConf with AutoDetect writes no node lines") {
  GresConf conf{.auto_detect = "nvidia", .nodes = {{.node = "gpu-01", .count = 8}}};
  const std::string text = WriteGresConf(conf).value();
  CHECK(absl::StrContains(text, "\nAutoDetect=nvidia\n"));
  CHECK_FALSE(absl::StrContains(text, "NodeName"));
}

TEST_CASE("WriteTopologyConf writes tree switches and blocks") {
  TopologyConf tree;
  tree.switches = {{.name = "leaf1", .nodes = {"n01", "n02"}},
                   {.name = "leaf2", .nodes = {"n03"}},
                   {.name = "spine", .switches = {"leaf1", "leaf2"}}};
  const std::string tree_text = WriteTopologyConf(tree).value();
  CHECK(absl::StrContains(tree_text,
                          "\nSwitchName=leaf1 Nodes=n[01-02]\nSwitchName=leaf2 Nodes=n03\n"
                          "SwitchName=spine Switches=leaf[1-2]\n"));
  TopologyConf block;
  block.blocks = {{.name = "nvl1", .nodes = {"n01", "n02"}}};
  block.block_sizes = {2, 4};
  CHECK(absl::StrContains(WriteTopologyConf(block).value(),
                          "\nBlockName=nvl1 Nodes=n[01-02]\nBlockSizes=2,4\n"));
}

TEST_CASE("WriteCgroupConf writes constraints, or only the plugin when disabled") {
  CHECK(absl::StrContains(WriteCgroupConf(CgroupConf{}),
                          "\nCgroupPlugin=autodetect\nConstrainCores=yes\nConstrainDevices=yes\n"
                          "ConstrainRAMSpace=yes\n"));
  const std::string disabled = WriteCgroupConf(CgroupConf{.plugin = "disabled"});
  CHECK(absl::StrContains(disabled, "\nCgroupPlugin=disabled\n"));
  CHECK_FALSE(absl::StrContains(disabled, "Constrain"));
}

}  // namespace
}  // namespace tidepool::slurm

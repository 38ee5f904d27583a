#include "tidepool/resources.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::api {
namespace {

TEST_CASE("ParseSlurmCluster reads the API's field names") {
  auto cluster = ParseSlurmCluster(R"({
    "apiVersion": "tidepool.dev/v1alpha1", "kind": "SlurmCluster",
    "metadata": {"name": "research", "namespace": "hpc", "managedFields": [{"x": 1}]},
    "spec": {"clusterName": "research", "controller": {"replicas": 2},
             "partitions": [{"name": "gpu", "nodeSets": ["h100"], "default": true,
                             "maxTime": "INFINITE", "config": {"OverSubscribe": "NO"}}],
             "slurmConfig": {"DefMemPerCPU": "4096"},
             "topology": {"plugin": "block", "blockSizes": [18, 72]},
             "podScheduler": {"enabled": true, "schedulerName": "tidepool-research"}},
    "status": {"whatever": true}})");
  REQUIRE(cluster.ok());
  CHECK(cluster->metadata().name() == "research");
  CHECK(cluster->metadata().namespace_() == "hpc");
  CHECK(cluster->spec().controller().replicas() == 2);
  CHECK(cluster->spec().partitions(0).node_sets(0) == "h100");
  CHECK(cluster->spec().partitions(0).default_());
  CHECK(cluster->spec().partitions(0).config().at("OverSubscribe") == "NO");
  CHECK(cluster->spec().topology().block_sizes(1) == 72);
  CHECK(cluster->spec().pod_scheduler().scheduler_name() == "tidepool-research");
}

TEST_CASE("ParseNodeSet reads MiB fields and keeps templates as structures") {
  auto node_set = ParseNodeSet(R"({
    "apiVersion": "tidepool.dev/v1alpha1", "kind": "NodeSet",
    "metadata": {"name": "h100", "namespace": "hpc"},
    "spec": {"clusterRef": {"name": "research"}, "replicas": 8,
             "nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"},
             "slurm": {"realMemoryMiB": 1000, "reservedMemoryMiB": 0, "gres": "gpu:h100:8"},
             "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%"}},
             "template": {"spec": {"containers": [{"name": "slurmd"}]}}}})");
  REQUIRE(node_set.ok());
  CHECK(node_set->spec().replicas() == 8);
  CHECK(node_set->spec().slurm().real_memory_mib() == 1000);
  CHECK(node_set->spec().slurm().has_reserved_memory_mib());
  CHECK(node_set->spec().slurm().reserved_memory_mib() == 0);
  CHECK(node_set->spec().update_strategy().rolling_update().max_unavailable().string_value() ==
        "25%");
  CHECK(node_set->spec().template_().fields().contains("spec"));
}

TEST_CASE("An unknown or mistyped spec field is an error naming the object") {
  auto typo = ParseNodeSet(R"({"apiVersion": "tidepool.dev/v1alpha1", "kind": "NodeSet",
    "metadata": {"name": "h100", "namespace": "hpc"}, "spec": {"nodeSelecter": {}}})");
  REQUIRE_FALSE(typo.ok());
  CHECK(typo.status().message().find("NodeSet hpc/h100: spec: ") == 0);
  CHECK(typo.status().message().find("nodeSelecter") != std::string::npos);
  auto mistyped = ParseSlurmCluster(R"({"apiVersion": "tidepool.dev/v1alpha1",
    "kind": "SlurmCluster", "metadata": {"name": "r"}, "spec": {"controller": {"replicas": "two"}}})");
  REQUIRE_FALSE(mistyped.ok());
  CHECK(mistyped.status().message().find("SlurmCluster r: spec: ") == 0);
}

TEST_CASE("Wrong kind, apiVersion or JSON are clear errors") {
  CHECK(ParseNodeSet(R"({"kind": "Pod"})").status().message() ==
        "expected kind NodeSet, got \"Pod\"");
  CHECK(ParseNodeSet(R"({"apiVersion": "v1", "kind": "NodeSet", "metadata": {"name": "a"}})")
            .status()
            .message() == "NodeSet a: apiVersion \"v1\" is not tidepool.dev/v1alpha1");
  CHECK(ParseNodeSet("{").status().message().find("JSON at offset 1") == 0);
  CHECK(KindOf("[]").status().message() == "JSON is not an object");
}

TEST_CASE("list items without a kind of their own are read as the expected kind") {
  auto node = ParseNode(R"({"metadata": {"name": "k-1"}})");
  REQUIRE(node.ok());
  CHECK(node->metadata().name() == "k-1");
  CHECK(ParseNode(R"({"kind": "Pod", "metadata": {"name": "p"}})").status().message() ==
        "expected kind Node, got \"Pod\"");
  auto node_set = ParseNodeSet(R"({"apiVersion": "tidepool.dev/v1alpha1",
      "metadata": {"name": "a"}, "spec": {"clusterRef": {"name": "r"}}})");
  REQUIRE(node_set.ok());
  CHECK(node_set->kind() == "NodeSet");
}

TEST_CASE("ParseNode reads labels, taints, cordon and allocatable") {
  auto node = ParseNode(R"({"apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "node-a", "labels": {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}},
    "spec": {"unschedulable": true, "podCIDR": "10.0.0.0/24",
             "taints": [{"key": "gpu", "value": "true", "effect": "NoSchedule", "timeAdded": null}]},
    "status": {"allocatable": {"cpu": "64", "memory": "512Gi", "nvidia.com/gpu": "8"},
               "conditions": [{"type": "Ready", "status": "True"}]}})");
  REQUIRE(node.ok());
  CHECK(node->metadata().name() == "node-a");
  CHECK(node->unschedulable());
  REQUIRE(node->taints_size() == 1);
  CHECK(node->taints(0).effect() == "NoSchedule");
  CHECK(node->allocatable().at("nvidia.com/gpu") == "8");
}

}  // namespace
}  // namespace tidepool::api

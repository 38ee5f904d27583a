#include "cluster_view.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::podsched {
namespace {

tidepool::v1::NodeSet NodeSet(const std::string& uid, const std::string& cluster,
                              const std::string& gres) {
  tidepool::v1::NodeSet node_set;
  node_set.mutable_metadata()->set_namespace_("hpc");
  node_set.mutable_metadata()->set_uid(uid);
  node_set.mutable_spec()->mutable_cluster_ref()->set_name(cluster);
  node_set.mutable_spec()->mutable_slurm()->set_gres(gres);
  return node_set;
}

api::PodView Slurmd(const std::string& name, const std::string& owner, const std::string& node) {
  api::PodView pod;
  pod.ns = "hpc";
  pod.name = name;
  pod.controller_uid = owner;
  pod.node_name = node;
  return pod;
}

TEST_CASE("only slurmd pods a NodeSet of the cluster controls map Slurm nodes to Nodes") {
  const ClusterView view = BuildClusterView(
      "hpc", "research", {NodeSet("u1", "research", "gpu:h100:8"), NodeSet("u2", "other", "")},
      {Slurmd("gpu-01", "u1", "node-a"), Slurmd("gpu-02", "u2", "node-b"),
       Slurmd("gpu-03", "stranger", "node-c"), Slurmd("gpu-04", "u1", "")});
  CHECK(view.NodeFor("gpu-01") == "node-a");
  CHECK_FALSE(view.NodeFor("gpu-02").has_value());
  CHECK_FALSE(view.NodeFor("gpu-03").has_value());
  CHECK_FALSE(view.NodeFor("gpu-04").has_value());
  CHECK(view.gpu_type == "h100");
}

TEST_CASE("a Node counts as the cluster's while a slurmd pod of it runs or terminates there") {
  api::PodView terminating = Slurmd("gpu-05", "u1", "node-e");
  terminating.deleting = true;
  const ClusterView view = BuildClusterView(
      "hpc", "research", {NodeSet("u1", "research", ""), NodeSet("u2", "other", "")},
      {Slurmd("gpu-01", "u1", "node-a"), Slurmd("gpu-02", "u2", "node-b"), terminating});
  CHECK(view.slurmd_nodes == std::set<std::string>{"node-a", "node-e"});
  CHECK_FALSE(view.NodeFor("gpu-05").has_value());  // nothing is bound to a terminating one

  api::PodView pod;
  pod.annotations["tidepool.dev/slurm-job-id"] = "7";
  CHECK_FALSE(BoundOutsideWithoutRecordedCluster(pod, view));  // not bound
  pod.node_name = "node-a";
  CHECK_FALSE(BoundOutsideWithoutRecordedCluster(pod, view));
  pod.node_name = "node-b";  // another cluster's slurmd runs there
  CHECK(BoundOutsideWithoutRecordedCluster(pod, view));
  pod.annotations["tidepool.dev/slurm-cluster"] = "";  // empty records none
  CHECK(BoundOutsideWithoutRecordedCluster(pod, view));
  pod.annotations["tidepool.dev/slurm-cluster"] = "hpc/research";
  CHECK_FALSE(BoundOutsideWithoutRecordedCluster(pod, view));
}

TEST_CASE("GPUs stay untyped when the cluster's NodeSets declare several types or none") {
  CHECK(BuildClusterView(
            "hpc", "research",
            {NodeSet("u1", "research", "gpu:h100:8"), NodeSet("u2", "research", "gpu:a100:8")}, {})
            .gpu_type.empty());
  CHECK(BuildClusterView("hpc", "research", {NodeSet("u1", "research", "gpu:8")}, {})
            .gpu_type.empty());
}

}  // namespace
}  // namespace tidepool::podsched

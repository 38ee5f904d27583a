#pragma once

#include <string>

#include "absl/strings/str_cat.h"
#include "support/api_fixtures.h"
#include "tidepool/resources.h"
#include "tidepool/v1/renderer.pb.h"

namespace tidepool::testing {

inline tidepool::v1::SlurmCluster Cluster(const std::string& spec_fields = "") {
  return api::ParseSlurmCluster(R"({"apiVersion": "tidepool.dev/v1alpha1", "kind": "SlurmCluster",
      "metadata": {"name": "research", "namespace": "hpc"},
      "spec": {"clusterName": "research")" +
                                (spec_fields.empty() ? "" : ", " + spec_fields) + "}}")
      .value();
}

inline tidepool::v1::NodeSet NodeSet(const std::string& name, const std::string& spec_fields = "") {
  return NodeSetWith(name, spec_fields);
}

// A member with 64 CPUs, 256 GiB, 8 H100s, and the given extra labels (JSON object body).
inline tidepool::v1::MemberNode Member(const std::string& slurm_name, const std::string& node_set,
                                       const std::string& labels = "") {
  tidepool::v1::MemberNode member;
  member.set_slurm_node_name(slurm_name);
  member.set_node_set(node_set);
  *member.mutable_node() =
      api::ParseNode(R"({"kind": "Node", "metadata": {"name": "k8s-)" + slurm_name +
                     R"(", "labels": {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3")" +
                     (labels.empty() ? "" : ", " + labels) +
                     R"(}}, "status": {"allocatable": {"cpu": "64", "memory": "256Gi",
                                      "nvidia.com/gpu": "8"}}})")
          .value();
  return member;
}

}  // namespace tidepool::testing

#pragma once

// What the pod-scheduler knows of its SlurmCluster's compute side: which NodeSets belong
// to it, the GPU type their GRES declare, and on which Kubernetes Node each Slurm node's
// slurmd pod runs. Only slurmd pods a NodeSet of this cluster controls (ownerReference,
// not a label anyone can set) count, so a pod is never bound outside the cluster.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "placement_policy.h"
#include "tidepool/pod_view.h"
#include "tidepool/v1/node_set.pb.h"

namespace tidepool::podsched {

struct ClusterView {
  std::set<std::string> node_set_uids;
  // The one GPU type of the NodeSets' GRES ("gpu:h100:8" → "h100"); "" when they declare
  // none, or several types (the job then asks for any GPU).
  std::string gpu_type;
  // Slurm node name (the slurmd pod's name) → the Kubernetes Node it runs on.
  std::map<std::string, std::string> node_of_slurm_node;
  // The Kubernetes Nodes a slurmd pod of the cluster runs on, terminating ones included.
  std::set<std::string> slurmd_nodes;

  // "<namespace>/<name>" of the cluster, which pods it placed record.
  std::string cluster_key;
  // What pods may name in their placement annotations (spec.podScheduler.placementPolicy).
  PlacementPolicy placement_policy;

  std::optional<std::string> NodeFor(const std::string& slurm_node) const;
};

// The pod records no cluster (tidepool.dev/slurm-cluster) and is bound to a Node without a
// slurmd pod of this cluster: a scheduler of another cluster answering to the same name
// placed it before pods recorded their cluster, so the job id it carries is not this
// Slurm's, and its job missing here says nothing. (Such a pod on a Node where slurmd pods
// of both clusters run cannot be told apart, and goes by this cluster's jobs as before.)
bool BoundOutsideWithoutRecordedCluster(const api::PodView& pod, const ClusterView& cluster);

// The NodeSets of `cluster` (same namespace, spec.clusterRef.name) from `node_sets`.
ClusterView BuildClusterView(const std::string& cluster_namespace, const std::string& cluster,
                             const std::vector<tidepool::v1::NodeSet>& node_sets,
                             const std::vector<api::PodView>& slurmd_pods);

}  // namespace tidepool::podsched

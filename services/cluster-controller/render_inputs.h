#pragma once

// The render request for one SlurmCluster from what the informers hold: the cluster,
// its NodeSets (clusterRef), and one member per slurmd pod of the cluster that is bound
// to a Node, with that Node's labels and allocatable. Pure: objects in, request out.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tidepool/node_view.h"
#include "tidepool/pod_view.h"
#include "tidepool/v1/renderer.pb.h"

namespace tidepool::cluster {

struct ClusterObjects {
  std::string cluster_json;
  std::vector<std::string> node_set_jsons;  // every NodeSet of the cluster's namespace
  // Slurmd pods labelled with the cluster: as JSON, or as views already parsed (an
  // informer that keeps views); both are read.
  std::vector<std::string> pod_jsons;
  std::vector<api::PodView> pods;
  // The Node by name: its view when `node_view` is set and has it (null otherwise), else
  // its JSON ("" when the cache has none).
  std::function<std::shared_ptr<const api::NodeView>(const std::string& node)> node_view;
  std::function<std::string(const std::string& node)> node_json;
};

struct RenderInputs {
  v1::RenderRequest request;
  // Pods left out, and why ("hpc/gpu-03: not bound to a Node yet").
  std::vector<std::string> skipped;
};

// InvalidArgument when the cluster itself cannot be read; NodeSets of other clusters
// are ignored and unreadable ones reported in skipped.
absl::StatusOr<RenderInputs> BuildRenderInputs(const ClusterObjects& objects,
                                               const v1::RenderEnvironment& environment);

}  // namespace tidepool::cluster

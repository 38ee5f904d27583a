#pragma once

// The render request for one SlurmCluster from what the informers hold: the cluster,
// its NodeSets (clusterRef), and one member per slurmd pod of the cluster that is bound
// to a Node, with that Node's labels and allocatable (what the render reads of it). Pure: objects
// in, request out.

#include <any>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/arena.h"
#include "tidepool/node_view.h"
#include "tidepool/pod_view.h"
#include "tidepool/render_labels.h"
#include "tidepool/v1/renderer.pb.h"

namespace tidepool::cluster {

struct ClusterObjects {
  std::string cluster_json;
  std::vector<std::string> node_set_jsons;  // every NodeSet of the cluster's namespace
  // Slurmd pods labelled with the cluster: as JSON, or as views already parsed (an
  // informer that keeps views: shared with its cache, as a render of 10,000 pods would
  // otherwise copy 36 MB of them); both are read.
  std::vector<std::string> pod_jsons;
  std::vector<std::shared_ptr<const api::PodView>> pods;
  // The Node by name: its view when `node_view` is set and has it (null otherwise), else
  // its JSON ("" when the cache has none).
  std::function<std::shared_ptr<const api::NodeView>(const std::string& node)> node_view;
  std::function<std::string(const std::string& node)> node_json;
  // Optional: called with the label keys the render reads before any Node is; a status
  // other than OK (the Node cache is not keeping them yet: NodeLabelKeys::Require) is
  // returned as it is, and nothing is rendered.
  std::function<absl::Status(const api::LabelKeys& keys)> require_node_labels;
};

struct RenderInputs {
  RenderInputs();

  // The request lives on an arena of blocks of 1 MiB: at 10,000 members it is some 15-25 MB
  // of small objects, built and freed on every sync. From the heap they would be freed into
  // glibc's arenas, which return them only when trimmed; blocks of this size are mapped
  // for the request and unmapped with it (common::HeapPolicy).
  std::unique_ptr<google::protobuf::Arena> arena;
  v1::RenderRequest* request;  // on `arena`
  // Pods left out that run no slurmd yet or are not the cluster's, and why
  // ("hpc/gpu-03: not bound to a Node yet").
  std::vector<std::string> skipped;
  // Inputs that cannot be read (a NodeSet of the cluster, a slurmd pod, a bound pod's Node
  // missing from the cache): any one stops the render.
  std::vector<std::string> blocking;
};

// What the render reads of a Node: its name, its labels of `labels` (api::RenderLabelKeys)
// and its allocatable. Its taints and cordon feed NodeSet placement only, so a cordon or a
// taint does not sync the cluster.
void CopyRenderInput(const v1::NodeInfo& from, const api::LabelKeys& labels, v1::NodeInfo& to);
// `node` reduced to what any render may read of it: CopyRenderInput's fields with all
// labels (which of them a render reads depends on the cluster and its NodeSets).
void KeepRenderInputOnly(v1::NodeInfo& node);
// For the Node informer's parse_view: a Node's view whose model holds its render input
// only (10,000 Nodes' taints are not kept for nothing); empty when the Node cannot be read.
std::any NodeViewForRender(absl::string_view json);
// The same, of the labels `labels` keeps only (which the renders Require).
std::function<std::any(absl::string_view)> NodeViewForRenderKeeping(
    std::shared_ptr<const api::NodeLabelKeys> labels);

// InvalidArgument when the cluster itself cannot be read; FailedPrecondition naming them
// when inputs block (a render without them would drop live nodes, and Slurm would end
// their jobs). NodeSets of other clusters are ignored.
absl::StatusOr<RenderInputs> BuildRenderInputs(const ClusterObjects& objects,
                                               const v1::RenderEnvironment& environment);

}  // namespace tidepool::cluster

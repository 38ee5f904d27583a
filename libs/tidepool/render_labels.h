#pragma once

// The Node labels a render reads, named once: the renderer reads labels by these keys, and
// cluster-controller sends it a Node's labels of these keys only. A real GPU Node carries
// tens of labels (feature discovery's among them) of which a render reads a handful; at
// 10,000 Nodes the others made most of the render request.

#include <string>
#include <vector>

#include "google/protobuf/repeated_ptr_field.h"
#include "tidepool/gres.h"
#include "tidepool/node_label_keys.h"
#include "tidepool/v1/node_set.pb.h"
#include "tidepool/v1/slurm_cluster.pb.h"

namespace tidepool::api {

// The label levels of a tree topology, top level first: the cluster's, else CoreWeave's
// InfiniBand fabric, superpod and leaf group.
std::vector<std::string> TopologyTreeLabels(const tidepool::v1::TopologySpec& spec);
// The label that groups a block topology's nodes: the cluster's, else the NVLink domain.
std::string TopologyBlockLabel(const tidepool::v1::TopologySpec& spec);

// Every label key a render of `cluster` with `node_sets` may read of a member's Node: the
// GPU labels (gres.h), the topology's tree levels and block label (whatever the plugin: a
// few keys more than a render reads, never fewer) and each NodeSet's feature labels.
LabelKeys RenderLabelKeys(
    const tidepool::v1::SlurmCluster& cluster,
    const google::protobuf::RepeatedPtrField<tidepool::v1::NodeSet>& node_sets);

}  // namespace tidepool::api

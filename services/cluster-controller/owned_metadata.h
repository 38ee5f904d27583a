#pragma once

// The metadata every object the cluster-controller makes for a SlurmCluster carries: its
// name and namespace, labels tidepool.dev/component and tidepool.dev/cluster (what the
// controller's informers select by), and, unless the object must outlive the cluster
// (state PVCs), the SlurmCluster as controlling owner so it goes with the cluster.

#include <map>
#include <string>

#include "absl/strings/string_view.h"
#include "k8s/object_json.h"
#include "tidepool/v1/slurm_cluster.pb.h"

namespace tidepool::cluster {

enum class Ownership { kOwnedByCluster, kOutlivesCluster };

// Writes "metadata": {...} (the key and the object) into an open object.
void WriteOwnedMetadata(k8s::JsonWriter& w, const v1::SlurmCluster& cluster, absl::string_view name,
                        absl::string_view component,
                        Ownership ownership = Ownership::kOwnedByCluster,
                        const std::map<std::string, std::string>& annotations = {});

// Writes the labels that select a component's pods: {component, cluster}.
void WriteComponentLabels(k8s::JsonWriter& w, const v1::SlurmCluster& cluster,
                          absl::string_view component);

}  // namespace tidepool::cluster

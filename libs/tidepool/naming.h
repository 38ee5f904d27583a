#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "tidepool/v1/node_set.pb.h"

namespace tidepool::api {

// Label on a Kubernetes Node that keeps its Slurm node name across pod re-creation.
inline constexpr char kSlurmNodeLabel[] = "tidepool.dev/slurm-node";
inline constexpr char kClusterLabel[] = "tidepool.dev/cluster";
inline constexpr char kNodeSetLabel[] = "tidepool.dev/nodeset";
// What an object Tidepool made is for: kSlurmdComponent on compute pods,
// kSlurmConfigComponent on the ConfigMap that holds the rendered Slurm configuration.
inline constexpr char kComponentLabel[] = "tidepool.dev/component";
inline constexpr char kSlurmdComponent[] = "slurmd";
inline constexpr char kSlurmConfigComponent[] = "slurm-config";

// Pod annotations the syncer keeps from Slurm's view of the pod's node.
inline constexpr char kSlurmStateAnnotation[] = "tidepool.dev/slurm-state";
inline constexpr char kSlurmReasonAnnotation[] = "tidepool.dev/slurm-reason";
// Node annotation with the drain reason while the node's Slurm node is drained.
inline constexpr char kDrainAnnotation[] = "tidepool.dev/drain";
// ConfigMap annotation with the rendered configuration's content hash.
inline constexpr char kConfigHashAnnotation[] = "tidepool.dev/config-hash";

// The ConfigMap with a SlurmCluster's rendered files (slurm.conf, gres.conf,
// topology.conf, cgroup.conf): "<cluster>-slurm-config" in the cluster's namespace.
std::string SlurmConfigMapName(absl::string_view cluster);

// spec.namePrefix, or metadata.name when unset.
std::string NamePrefix(const tidepool::v1::NodeSet& node_set);

// "<prefix>-<NN>": the ordinal zero-padded to two digits, so names stay range-compressible.
std::string SlurmNodeName(absl::string_view prefix, int ordinal);

// The ordinal of `name` if it is "<prefix>-<digits>", else -1.
int OrdinalOf(absl::string_view prefix, absl::string_view name);

// The lowest ordinals >= 1 not in `taken`, `count` of them.
std::vector<int> LowestFreeOrdinals(const std::vector<int>& taken, int count);

}  // namespace tidepool::api

#pragma once

// The one SlurmCluster a Tidepool release serves (--slurm_cluster=<namespace>/<name> of
// every service), and which cluster a NodeSet names. slurm-syncer talks to one slurmctld,
// so the controllers of the same release act only for that cluster: a second
// SlurmCluster has a release of its own, and two releases never both act on an object.

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tidepool::api {

struct ClusterRef {
  std::string namespace_name;
  std::string name;

  bool operator==(const ClusterRef&) const = default;
  std::string ToString() const;  // "hpc/research", the key of the SlurmCluster
};

// "<namespace>/<name>", each a DNS label; InvalidArgument naming `flag` otherwise.
absl::StatusOr<ClusterRef> ParseClusterRef(absl::string_view text,
                                           absl::string_view flag = "--slurm_cluster");

// spec.clusterRef.name of a NodeSet's JSON, read on its own so that a NodeSet whose spec
// does not parse as a whole still tells whose it is; nullopt when even that does not read.
std::optional<std::string> NodeSetClusterName(absl::string_view node_set_json);

// The SlurmCluster key (namespace/name) a NodeSet in `ns` names, "" when unreadable.
std::string NodeSetClusterKey(absl::string_view ns, absl::string_view node_set_json);

}  // namespace tidepool::api

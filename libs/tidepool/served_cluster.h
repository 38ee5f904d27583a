#pragma once

// Which SlurmClusters a controller acts for. A release serves the one cluster its
// --slurm_cluster names (slurm-syncer drives that cluster's slurmctld only), so its
// cluster-controller and nodeset-controller leave every other cluster, and that cluster's
// NodeSets, to the release that serves it: two releases never both apply a cluster's
// objects or write its status. Without --slurm_cluster every cluster seen is served (a
// single-cluster test environment, or an older install).

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tidepool/cluster_ref.h"

namespace tidepool::api {

class ServedCluster {
 public:
  ServedCluster() = default;  // every cluster, in every namespace

  // From --slurm_cluster ("" = every cluster) and --watch_namespace ("" = the served
  // cluster's, or all): InvalidArgument naming the flags when they disagree.
  static absl::StatusOr<ServedCluster> FromFlags(absl::string_view slurm_cluster,
                                                 absl::string_view watch_namespace);

  // Whether the SlurmCluster with this key (namespace/name) is served.
  bool Serves(absl::string_view cluster_key) const;
  // The namespace whose objects the controller watches, "" for all.
  const std::string& watch_namespace() const { return watch_namespace_; }
  // "hpc/research", or "" when every cluster is served.
  std::string ToString() const { return ref_.has_value() ? ref_->ToString() : ""; }

 private:
  std::optional<ClusterRef> ref_;
  std::string watch_namespace_;
};

}  // namespace tidepool::api

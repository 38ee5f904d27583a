#include "tidepool/served_cluster.h"

#include "absl/strings/str_cat.h"

namespace tidepool::api {

absl::StatusOr<ServedCluster> ServedCluster::FromFlags(absl::string_view slurm_cluster,
                                                       absl::string_view watch_namespace) {
  ServedCluster served;
  served.watch_namespace_ = std::string(watch_namespace);
  if (slurm_cluster.empty()) return served;
  absl::StatusOr<ClusterRef> ref = ParseClusterRef(slurm_cluster);
  if (!ref.ok()) return ref.status();
  if (!watch_namespace.empty() && watch_namespace != ref->namespace_name) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--watch_namespace=\"", watch_namespace, "\" leaves out --slurm_cluster=\"", slurm_cluster,
        "\": leave --watch_namespace empty or set it to \"", ref->namespace_name, "\""));
  }
  served.watch_namespace_ = ref->namespace_name;
  served.ref_ = *std::move(ref);
  return served;
}

bool ServedCluster::Serves(absl::string_view cluster_key) const {
  return !ref_.has_value() || cluster_key == ref_->ToString();
}

}  // namespace tidepool::api

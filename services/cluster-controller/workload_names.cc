#include "workload_names.h"

#include "absl/strings/str_cat.h"

namespace tidepool::cluster {

absl::Status CheckStatefulSetName(absl::string_view cluster, absl::string_view statefulset,
                                  absl::string_view daemon) {
  if (statefulset.size() <= kMaxStatefulSetName) return absl::OkStatus();
  const size_t suffix = statefulset.size() - cluster.size();
  return absl::InvalidArgumentError(
      absl::StrCat("metadata.name \"", cluster, "\" is too long for the ", daemon, " StatefulSet ",
                   statefulset, " (", statefulset.size(),
                   " characters; Kubernetes makes no pods for one over ", kMaxStatefulSetName,
                   "); use a name of at most ", kMaxStatefulSetName - suffix, " characters"));
}

}  // namespace tidepool::cluster

#pragma once

// Limits on the names of the workloads a cluster's name becomes part of.

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace tidepool::cluster {

// The StatefulSet controller labels each pod controller-revision-hash=<name>-<hash of up to
// 10 characters>, a label value of at most 63: a longer StatefulSet name is accepted by
// the API server, but none of its pods can be made.
inline constexpr size_t kMaxStatefulSetName = 52;

// InvalidArgument naming metadata.name and the longest it may be, when `statefulset`
// (the cluster's name `cluster` and a suffix) is too long for its pods to be made.
absl::Status CheckStatefulSetName(absl::string_view cluster, absl::string_view statefulset,
                                  absl::string_view daemon);

}  // namespace tidepool::cluster

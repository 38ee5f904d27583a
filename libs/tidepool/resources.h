#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tidepool/v1/meta.pb.h"
#include "tidepool/v1/node_set.pb.h"
#include "tidepool/v1/slurm_cluster.pb.h"

namespace tidepool::api {

inline constexpr char kGroup[] = "tidepool.dev";
inline constexpr char kApiVersion[] = "tidepool.dev/v1alpha1";

// One mapping per resource type from its Kubernetes JSON. The spec is read strictly: an
// unknown or mistyped field is an InvalidArgument error that names the object and field.
// Metadata is read leniently (managedFields and the like are ignored); status is ignored.
absl::StatusOr<tidepool::v1::SlurmCluster> ParseSlurmCluster(absl::string_view json);
absl::StatusOr<tidepool::v1::NodeSet> ParseNodeSet(absl::string_view json);
// A NodeSet's spec.slurm on its own (a pod's kSlurmAttributesAnnotation), read as
// strictly as the NodeSet's; errors name `object`.
absl::StatusOr<tidepool::v1::NodeSetSlurm> ParseNodeSetSlurm(absl::string_view json,
                                                             absl::string_view object);
// A core/v1 Node: metadata, spec.taints, spec.unschedulable and status.allocatable.
absl::StatusOr<tidepool::v1::NodeInfo> ParseNode(absl::string_view json);

// The "kind" of a Kubernetes object's JSON, or an error when it has none.
absl::StatusOr<std::string> KindOf(absl::string_view json);

}  // namespace tidepool::api

#pragma once

// The syncer's gRPC messages ⇄ the REST client's model: one place for each direction.

#include "absl/status/statusor.h"
#include "drain_policy.h"
#include "slurm/rest/model.h"
#include "tidepool/v1/syncer.pb.h"

namespace tidepool::syncer {

void ToProto(const slurm::rest::Node& node, v1::SlurmNode* out);
void ToProto(const slurm::rest::Job& job, v1::SlurmJob* out);

// The request as the drain policy reads it; InvalidArgument for an unknown action.
DrainRequest FromProto(const v1::UpdateNodeRequest& request);

// A submission Slurm will accept the shape of: InvalidArgument naming the field for a
// missing script, negative counts or limits.
absl::StatusOr<slurm::rest::JobSubmission> FromProto(const v1::JobSpec& spec);

}  // namespace tidepool::syncer

#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "tidepool/v1/renderer.pb.h"

namespace tidepool::renderer {

// Checks everything about a render request that does not need derivation: required
// fields, names, ranges, references between NodeSets, partitions and members, and the
// user's Slurm settings. The error names the field (for example
// "NodeSet hpc/h100: spec.slurm.gres: …"). Appends warnings for suspicious but usable input.
absl::Status ValidateRenderRequest(const tidepool::v1::RenderRequest& request,
                                   std::vector<std::string>& warnings);

}  // namespace tidepool::renderer

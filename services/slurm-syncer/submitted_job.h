#pragma once

// A job as slurm-syncer submitted it, before Slurm has looked at it: what a read would
// show of it then, but the partition as asked ("" when Slurm picks its default one).

#include <string>

#include "absl/time/time.h"
#include "slurm/rest/model.h"

namespace tidepool::syncer {

slurm::rest::Job PendingAsSubmitted(const slurm::rest::JobSubmission& submission,
                                    slurm::rest::JobId id, std::string user, absl::Time submitted);

}  // namespace tidepool::syncer

#pragma once

// GRES as slurmrestd reports a node's: "gpu:h100:8(S:0-1)", "gpu:4(IDX:0,2-3)", several
// joined by commas ("gpu:a100:2(S:0),shard:8"). Counting them for metrics.

#include <cstdint>

#include "absl/strings/string_view.h"

namespace tidepool::slurm::rest {

// The summed count of the entries named `name` ("gpu"), whatever their type; 0 for "",
// "N/A" or entries it cannot read.
int64_t GresCount(absl::string_view gres, absl::string_view name);

}  // namespace tidepool::slurm::rest

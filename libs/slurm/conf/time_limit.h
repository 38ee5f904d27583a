#pragma once

// Slurm's time-limit syntax (a partition's MaxTime and DefaultTime): INFINITE or UNLIMITED,
// or minutes, minutes:seconds, hours:minutes:seconds, days-hours, days-hours:minutes or
// days-hours:minutes:seconds. slurmctld reads a malformed value as an error in the whole
// configuration, so one is refused before it is written.

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tidepool::slurm {

// The limit in whole minutes (seconds rounded up, as Slurm does); -1 for INFINITE or
// UNLIMITED. InvalidArgument saying what is wrong; values past Slurm's largest finite
// limit are refused rather than wrapped.
absl::StatusOr<int64_t> ParseTimeLimit(absl::string_view text);

}  // namespace tidepool::slurm

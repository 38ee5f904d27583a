#pragma once

// The configuration keys Slurm's own parser knows (src/common/read_config.c of Slurm 24.11
// and of newer releases, together): slurm.conf's global keys and those of its NodeName= and
// PartitionName= lines. slurmctld will not start on a key it does not know, so a typo in a
// SlurmCluster is refused before it reaches Slurm.

#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace tidepool::slurm {

enum class KeyScope { kGlobal, kNodeLine, kPartitionLine };

// Case-insensitive, as Slurm reads keys.
bool IsKnownKey(KeyScope scope, absl::string_view key);

// The known key closest to `key` in edits (case ignored), when it is close enough to be the
// one meant: "did you mean SchedulerParameters?".
std::optional<std::string> NearestKnownKey(KeyScope scope, absl::string_view key);

}  // namespace tidepool::slurm

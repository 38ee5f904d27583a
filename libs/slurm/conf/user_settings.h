#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tidepool::slurm {

// Checks the user's slurm.conf settings (SlurmCluster spec.slurmConfig). A key that
// Tidepool owns (ClusterName, SlurmctldHost, NodeName, …), a key Slurm does not know (with
// the nearest one it does: "did you mean …?"), or a malformed key or value is an
// InvalidArgument error that names the key. Keys Tidepool only defaults (ProctrackType,
// SchedulerParameters, …) may be set: the user's value replaces Tidepool's.
absl::Status ValidateUserSettings(const std::map<std::string, std::string>& settings);

// Checks extraConfig: blank lines, comments, and lines of one Key=Value each whose key
// Slurm knows and Tidepool does not own; no control characters. Errors name the line
// number and the key.
absl::Status ValidateExtraConfig(absl::string_view text);

// Checks extra key=value pairs for a NodeName line (`line_kind` "NodeName") or a
// PartitionName line ("PartitionName"): the keys Tidepool writes on that line are refused.
absl::Status ValidateLineSettings(absl::string_view line_kind,
                                  const std::map<std::string, std::string>& settings);

// Lower-cased first keys of the non-comment lines of a config text.
absl::flat_hash_set<std::string> ConfigLineKeys(absl::string_view text);

// Lower-cased keys that the user set in settings and extra config; the slurm.conf writer
// leaves out its own default for each of them.
absl::flat_hash_set<std::string> UserSetKeys(const std::map<std::string, std::string>& settings,
                                             absl::string_view extra_config);

}  // namespace tidepool::slurm

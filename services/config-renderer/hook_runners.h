#pragma once

// The prolog and epilog runners: shell scripts slurm.conf's Prolog= and Epilog= name when
// the SlurmCluster has spec.prolog / spec.epilog, which run every script of the directory
// the ConfigMap is mounted at in name order. Slurm itself runs the matches of a Prolog=
// glob in reverse name order (seen on 24.11 and 26.05), while the API promises name order.
// The first script that fails ends the runner with its exit status, so Slurm treats it as
// it treats a failed prolog or epilog (the node is drained, the job requeued or failed).

#include <string>

#include "absl/strings/string_view.h"

namespace tidepool::renderer {

// The runner for the scripts in `scripts_dir` ("/etc/slurm/prolog.d").
std::string HookRunnerScript(absl::string_view hook, absl::string_view scripts_dir);

}  // namespace tidepool::renderer

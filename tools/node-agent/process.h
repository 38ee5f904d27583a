#pragma once

// Runs a helper program (the Slurm test environment's scripts) to completion with a time
// bound, as the agent's stand-in for a container runtime.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace tidepool::node_agent {

struct ProcessResult {
  int exit_code = 0;   // -signal when killed by a signal
  std::string output;  // stdout and stderr, interleaved
};

// Runs argv[0] (a path) with argv, stdin from /dev/null and SIGTERM/SIGINT unblocked (the
// agent blocks them for its signal thread; daemons the program starts must not inherit
// that). DeadlineExceeded, with the output so far, when it runs longer than `timeout`; it
// is then killed with its process group.
absl::StatusOr<ProcessResult> RunProcess(const std::vector<std::string>& argv,
                                         absl::Duration timeout);

}  // namespace tidepool::node_agent

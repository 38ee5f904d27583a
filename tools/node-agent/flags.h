#pragma once

// The node agent's command-line flags, read into AgentOptions.

#include "absl/status/statusor.h"
#include "agent_options.h"
#include "common/log.h"

namespace tidepool::node_agent {

// The options the flags describe; InvalidArgument naming the flag when one is wrong.
absl::StatusOr<AgentOptions> ReadAgentFlags();
absl::StatusOr<common::LogLevel> ReadLogLevelFlag();

}  // namespace tidepool::node_agent

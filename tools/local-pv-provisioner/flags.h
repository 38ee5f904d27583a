#pragma once

// The provisioner's command-line flags.

#include <string>

#include "absl/status/statusor.h"
#include "common/log.h"

namespace tidepool::local_pv {

struct ProvisionerOptions {
  std::string kubeconfig;
  std::string volume_dir;  // absolute, lexically normalised
  std::string provisioner_name;
};

// The options the flags describe; InvalidArgument naming the flag when one is wrong.
absl::StatusOr<ProvisionerOptions> ReadProvisionerFlags();
absl::StatusOr<common::LogLevel> ReadLogLevelFlag();

}  // namespace tidepool::local_pv

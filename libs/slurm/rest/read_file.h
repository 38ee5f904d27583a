#pragma once

// A whole file as bytes, for the credentials read from files (JWT key, token).

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tidepool::slurm::rest {

// NotFound / PermissionDenied / FailedPrecondition naming `what` and `path`;
// PermissionDenied too for a file others may read (common::CheckSecretFileMode).
absl::StatusOr<std::string> ReadWholeFile(const std::string& path, absl::string_view what);

}  // namespace tidepool::slurm::rest

#pragma once

// Credentials read from files (gRPC TLS keys, Slurm JWT keys and tokens): a file others may
// read, or its group may write, is refused, since whoever reads it can act as Tidepool.

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace tidepool::common {

// OK when nobody outside the file's owner and group has any access and its group at most
// reads (0600, 0400, 0640, 0440: a Secret volume with fsGroup gives 0440). PermissionDenied
// naming `what`, the path and its mode otherwise; NotFound when it cannot be stat'ed.
absl::Status CheckSecretFileMode(const std::string& path, absl::string_view what);

}  // namespace tidepool::common

#pragma once

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace tidepool::testing {

// Checks Prometheus text exposition (0.0.4): HELP/TYPE comments, and sample lines of the
// form name{label="value",...} number. The error names the first bad line.
absl::Status ValidateExposition(absl::string_view text);

}  // namespace tidepool::testing

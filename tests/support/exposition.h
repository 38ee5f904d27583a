#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace tidepool::testing {

// Checks Prometheus text exposition (0.0.4): HELP/TYPE comments, and sample lines of the
// form name{label="value",...} number. The error names the first bad line.
absl::Status ValidateExposition(absl::string_view text);

// The value of the first sample of `name` in `text`: of its unlabelled series when `labels`
// is empty, else of the first series whose labels contain `labels` (e.g. `state="idle"`).
// "" when there is none. Comment lines never match.
std::string SampleValue(absl::string_view text, absl::string_view name,
                        absl::string_view labels = "");

}  // namespace tidepool::testing

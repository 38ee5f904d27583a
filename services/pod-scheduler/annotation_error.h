#pragma once

// The error for a pod annotation the scheduler cannot use, as the pod's PodScheduled
// condition and event show it: `annotation tidepool.dev/time-limit: "90m" is not ...`.

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace tidepool::podsched {

// InvalidArgument naming the annotation, its value (escaped) and what is wrong with it.
absl::Status InvalidAnnotation(absl::string_view annotation, absl::string_view value,
                               absl::string_view problem);

}  // namespace tidepool::podsched

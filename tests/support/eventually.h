#pragma once

// Waiting for a real system to get somewhere: polls a condition until it holds.

#include <functional>
#include <optional>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace tidepool::testing {

// Polls `check` every `period` until it returns true (then: how long that took) or
// `timeout` passes (nullopt).
inline std::optional<absl::Duration> PollUntil(const std::function<bool()>& check,
                                               absl::Duration timeout,
                                               absl::Duration period = absl::Milliseconds(100)) {
  const absl::Time start = absl::Now();
  while (absl::Now() - start < timeout) {
    if (check()) return absl::Now() - start;
    absl::SleepFor(period);
  }
  return std::nullopt;
}

}  // namespace tidepool::testing

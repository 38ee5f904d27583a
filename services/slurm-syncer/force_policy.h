#pragma once

// Who may force a drain or undrain over a reason the syncer does not own (a person's
// drain): a forced undrain puts a node a person took out back under jobs, so nobody may by
// default.

#include <string>
#include <vector>

#include "absl/types/span.h"

namespace tidepool::syncer {

inline constexpr char kAnyCaller[] = "*";

// True when one of the caller's verified `identities` is in `allowed`, or `allowed` holds
// kAnyCaller (which admits a plaintext caller, who has no identity).
bool MayForce(absl::Span<const std::string> allowed, absl::Span<const std::string> identities);

}  // namespace tidepool::syncer

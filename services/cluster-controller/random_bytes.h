#pragma once

// Key material for the Secrets the cluster-controller generates, from OpenSSL's CSPRNG.

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"

namespace tidepool::cluster {

// `size` random bytes; Internal when the generator fails (never a weak fallback).
absl::StatusOr<std::string> RandomBytes(size_t size);

}  // namespace tidepool::cluster

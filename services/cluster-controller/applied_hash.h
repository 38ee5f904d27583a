#pragma once

// An apply body stamped with the hash of its own content (tidepool.dev/applied-hash), and
// that stamp read back from a cached object: a step applies an object only when the
// cached one carries a different stamp, so syncs that change nothing write nothing.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tidepool::cluster {

// `body` with metadata.annotations["tidepool.dev/applied-hash"] = "sha256:…" of `body`.
absl::StatusOr<std::string> StampAppliedHash(absl::string_view body);

// The stamp of an object's JSON; "" when absent or unreadable.
std::string AppliedHashOf(absl::string_view object_json);

}  // namespace tidepool::cluster

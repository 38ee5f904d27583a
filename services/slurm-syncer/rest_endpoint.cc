#include "rest_endpoint.h"

#include <utility>

namespace tidepool::syncer {

absl::StatusOr<RestEndpoint> EndpointToUse(absl::StatusOr<RestEndpoint> read,
                                           const std::optional<RestEndpoint>& last) {
  if (read.ok() || !last.has_value() || absl::IsFailedPrecondition(read.status())) return read;
  return *last;
}

}  // namespace tidepool::syncer

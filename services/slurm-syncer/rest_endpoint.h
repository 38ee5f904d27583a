#pragma once

// Where slurmrestd is and how it is trusted, as found before a connection attempt (the
// served cluster's Service and TLS Secret: restapi_url.h).

#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace tidepool::syncer {

struct RestEndpoint {
  std::string base_url;    // https://<cluster>-restapi.<namespace>.svc:6820
  std::string ca_pem;      // the only CA trusted; empty: the system's
  std::string connect_to;  // libcurl CONNECT_TO ("host:port:address:port"); empty: none
};

using RestEndpointResolver = std::function<absl::StatusOr<RestEndpoint>()>;

// The endpoint to connect with, given what was just read and the last one read well: the
// one read; or, when reading failed for want of the API server (not FailedPrecondition: an
// object missing or unusable, which a person changed), the last one, so an API server
// outage does not keep the syncer from a slurmrestd it reached before.
absl::StatusOr<RestEndpoint> EndpointToUse(absl::StatusOr<RestEndpoint> read,
                                           const std::optional<RestEndpoint>& last);

}  // namespace tidepool::syncer

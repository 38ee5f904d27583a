#pragma once

// Where slurmrestd is and how it is trusted, as found before a connection attempt (the
// served cluster's Service and TLS Secret: restapi_url.h).

#include <functional>
#include <string>

#include "absl/status/statusor.h"

namespace tidepool::syncer {

struct RestEndpoint {
  std::string base_url;    // https://<cluster>-restapi.<namespace>.svc:6820
  std::string ca_pem;      // the only CA trusted; empty: the system's
  std::string connect_to;  // libcurl CONNECT_TO ("host:port:address:port"); empty: none
};

using RestEndpointResolver = std::function<absl::StatusOr<RestEndpoint>()>;

}  // namespace tidepool::syncer

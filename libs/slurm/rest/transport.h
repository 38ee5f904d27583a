#pragma once

// How requests reach slurmrestd: HTTP or HTTPS over TCP, or HTTP over a UNIX socket
// (libcurl). One request, one attempt; retries and errors[] belong to the client above.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace tidepool::slurm::rest {

using Header = std::pair<std::string, std::string>;

struct HttpRequest {
  std::string method = "GET";  // GET, POST, DELETE
  std::string path;            // /slurm/v0.0.45/nodes/?update_time=…
  std::vector<Header> headers;
  std::string body;  // sent as application/json when not empty
  absl::Duration timeout = absl::Seconds(30);
};

struct HttpResponse {
  int status = 0;
  std::string body;
};

class Transport {
 public:
  virtual ~Transport() = default;
  // The reply, whatever its HTTP status. Unavailable when the server cannot be reached
  // (refused, reset, no socket) or its certificate is not trusted, DeadlineExceeded after
  // request.timeout.
  virtual absl::StatusOr<HttpResponse> Send(const HttpRequest& request) = 0;
  // Where requests go, for messages: "http://127.0.0.1:6820" or "unix:/run/…/sock".
  virtual std::string Describe() const = 0;
};

struct CurlTransportOptions {
  // http://host:port (no path). With unix_socket set, only the Host header comes from it
  // (default http://localhost).
  std::string base_url;
  std::string unix_socket;
  std::string ca_pem;      // https: the only CA trusted (PEM); empty: the system's
  std::string connect_to;  // "host:port:address:port": connect there, verify host
  absl::Duration connect_timeout = absl::Seconds(5);
};

std::unique_ptr<Transport> NewCurlTransport(CurlTransportOptions options);

}  // namespace tidepool::slurm::rest

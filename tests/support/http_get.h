#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace tidepool::testing {

struct HttpResponse {
  long status = 0;
  std::string content_type;
  std::string body;
};

// For https:// URLs: the only CA trusted, and where to connect instead of the URL's host,
// which the certificate must still name (libcurl's CONNECT_TO "host:port:address:port").
struct HttpsTrust {
  std::string ca_pem;
  std::string connect_to;
};

// A GET with a timeout and extra "Name: value" headers; transport failures (a certificate
// not trusted among them) are errors.
absl::StatusOr<HttpResponse> HttpGet(const std::string& url,
                                     absl::Duration timeout = absl::Seconds(5),
                                     const std::vector<std::string>& headers = {},
                                     const HttpsTrust& trust = {});

}  // namespace tidepool::testing

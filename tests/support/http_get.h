#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace tidepool::testing {

struct HttpResponse {
  long status = 0;
  std::string content_type;
  std::string body;
};

// A plain HTTP GET (no TLS) with a timeout; transport failures are errors.
absl::StatusOr<HttpResponse> HttpGet(const std::string& url,
                                     absl::Duration timeout = absl::Seconds(5));

}  // namespace tidepool::testing

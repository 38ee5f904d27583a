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

// A plain HTTP GET (no TLS) with a timeout and extra "Name: value" headers; transport
// failures are errors.
absl::StatusOr<HttpResponse> HttpGet(const std::string& url,
                                     absl::Duration timeout = absl::Seconds(5),
                                     const std::vector<std::string>& headers = {});

}  // namespace tidepool::testing

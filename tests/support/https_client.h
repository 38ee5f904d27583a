#pragma once

// A small HTTP(S) client for tests (libcurl): the API server with a client certificate
// and a CA file, and slurmrestd over plain HTTP with a token header. Test support only;
// the product's Kubernetes client lives in libs/k8s.

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "support/http_get.h"

namespace tidepool::testing {

struct HttpsClientOptions {
  std::string base_url;          // https://127.0.0.1:16443 or http://127.0.0.1:6820
  std::string ca_file;           // verify the server against this CA (https only)
  std::string client_cert_file;  // PEM client certificate and key; empty: none
  std::string client_key_file;
  std::vector<std::pair<std::string, std::string>> headers;  // sent with every request
  absl::Duration timeout = absl::Seconds(30);                // per request (not streams)
};

class HttpsClient {
 public:
  explicit HttpsClient(HttpsClientOptions options) : options_(std::move(options)) {}

  // A response of any HTTP status is returned as is; only transport failures are errors.
  // `path` is appended to the base URL ("/api/v1/namespaces"); a body is sent as JSON.
  absl::StatusOr<HttpResponse> Request(absl::string_view method, absl::string_view path,
                                       absl::string_view json_body = "") const;
  absl::StatusOr<HttpResponse> Get(absl::string_view path) const { return Request("GET", path); }
  absl::StatusOr<HttpResponse> Post(absl::string_view path, absl::string_view json) const {
    return Request("POST", path, json);
  }
  absl::StatusOr<HttpResponse> Put(absl::string_view path, absl::string_view json) const {
    return Request("PUT", path, json);
  }
  absl::StatusOr<HttpResponse> Delete(absl::string_view path, absl::string_view json = "") const {
    return Request("DELETE", path, json);
  }

  // A streaming GET (a Kubernetes watch): calls `on_line` with each line as it arrives
  // (without the newline) until `on_line` returns false. Returns OK only then;
  // DeadlineExceeded when `timeout` passes first, Unavailable when the server ends the
  // stream first, and an error carrying the body for an HTTP status other than 2xx.
  absl::Status StreamLines(absl::string_view path,
                           const std::function<bool(absl::string_view line)>& on_line,
                           absl::Duration timeout) const;

  const HttpsClientOptions& options() const { return options_; }

 private:
  HttpsClientOptions options_;
};

}  // namespace tidepool::testing

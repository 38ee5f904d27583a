#include "support/https_client.h"

#include <curl/curl.h>

#include <memory>

#include "absl/strings/str_cat.h"

namespace tidepool::testing {
namespace {

using CurlHandle = std::unique_ptr<CURL, decltype(&curl_easy_cleanup)>;
using HeaderList = std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)>;

size_t AppendBody(char* data, size_t size, size_t count, void* body) {
  static_cast<std::string*>(body)->append(data, size * count);
  return size * count;
}

// One easy handle set up for `method` on `url` with the client's TLS and headers.
absl::StatusOr<std::pair<CurlHandle, HeaderList>> NewHandle(const HttpsClientOptions& options,
                                                            absl::string_view method,
                                                            const std::string& url,
                                                            absl::string_view json_body) {
  CurlHandle curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return absl::InternalError("curl_easy_init failed");
  HeaderList headers(nullptr, curl_slist_free_all);
  auto add_header = [&headers](const std::string& line) {
    headers.reset(curl_slist_append(headers.release(), line.c_str()));
  };
  add_header("Accept: application/json");
  if (!json_body.empty()) add_header("Content-Type: application/json");
  for (const auto& [name, value] : options.headers) add_header(absl::StrCat(name, ": ", value));

  CURL* h = curl.get();
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, std::string(method).c_str());
  if (method == "GET") curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
  if (!json_body.empty()) {
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, static_cast<long>(json_body.size()));
    curl_easy_setopt(h, CURLOPT_COPYPOSTFIELDS, std::string(json_body).c_str());
    // COPYPOSTFIELDS implies POST; keep the method asked for.
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, std::string(method).c_str());
  }
  if (!options.ca_file.empty()) curl_easy_setopt(h, CURLOPT_CAINFO, options.ca_file.c_str());
  if (!options.client_cert_file.empty()) {
    curl_easy_setopt(h, CURLOPT_SSLCERT, options.client_cert_file.c_str());
    curl_easy_setopt(h, CURLOPT_SSLKEY, options.client_key_file.c_str());
  }
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
  return std::make_pair(std::move(curl), std::move(headers));
}

struct StreamState {
  const std::function<bool(absl::string_view)>* on_line;
  CURL* curl;
  std::string pending;      // bytes after the last newline
  std::string error_body;   // the body of a non-2xx response
  bool stopped = false;     // on_line returned false
  bool http_error = false;  // status other than 2xx
};

size_t StreamWrite(char* data, size_t size, size_t count, void* user) {
  auto* state = static_cast<StreamState*>(user);
  const size_t bytes = size * count;
  long status = 0;
  curl_easy_getinfo(state->curl, CURLINFO_RESPONSE_CODE, &status);
  if (status < 200 || status > 299) {
    state->http_error = true;
    state->error_body.append(data, bytes);
    return bytes;
  }
  state->pending.append(data, bytes);
  size_t start = 0;
  for (size_t newline = state->pending.find('\n'); newline != std::string::npos;
       newline = state->pending.find('\n', start)) {
    const absl::string_view line(state->pending.data() + start, newline - start);
    start = newline + 1;
    if (!(*state->on_line)(line)) {
      state->stopped = true;
      return 0;  // aborts the transfer (CURLE_WRITE_ERROR)
    }
  }
  state->pending.erase(0, start);
  return bytes;
}

}  // namespace

absl::StatusOr<HttpResponse> HttpsClient::Request(absl::string_view method, absl::string_view path,
                                                  absl::string_view json_body) const {
  const std::string url = absl::StrCat(options_.base_url, path);
  auto handle = NewHandle(options_, method, url, json_body);
  if (!handle.ok()) return handle.status();
  CURL* h = handle->first.get();
  HttpResponse response;
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(absl::ToInt64Milliseconds(options_.timeout)));
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, AppendBody);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &response.body);
  const CURLcode code = curl_easy_perform(h);
  if (code != CURLE_OK) {
    return absl::UnavailableError(absl::StrCat(method, " ", url, ": ", curl_easy_strerror(code)));
  }
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &response.status);
  char* content_type = nullptr;
  curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &content_type);
  if (content_type != nullptr) response.content_type = content_type;
  return response;
}

absl::Status HttpsClient::StreamLines(absl::string_view path,
                                      const std::function<bool(absl::string_view)>& on_line,
                                      absl::Duration timeout) const {
  const std::string url = absl::StrCat(options_.base_url, path);
  auto handle = NewHandle(options_, "GET", url, "");
  if (!handle.ok()) return handle.status();
  CURL* h = handle->first.get();
  StreamState state{&on_line, h};
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(absl::ToInt64Milliseconds(timeout)));
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, StreamWrite);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &state);
  const CURLcode code = curl_easy_perform(h);
  if (state.stopped) return absl::OkStatus();
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  if (state.http_error) {
    return absl::FailedPreconditionError(
        absl::StrCat("GET ", url, ": HTTP ", status, ": ", state.error_body));
  }
  if (code == CURLE_OPERATION_TIMEDOUT) {
    return absl::DeadlineExceededError(
        absl::StrCat("GET ", url, ": the stream did not deliver what was awaited within ",
                     absl::FormatDuration(timeout)));
  }
  if (code != CURLE_OK) {
    return absl::UnavailableError(absl::StrCat("GET ", url, ": ", curl_easy_strerror(code)));
  }
  // The server ended the stream; a last line without a newline still counts.
  if (!state.pending.empty() && !on_line(state.pending)) return absl::OkStatus();
  return absl::UnavailableError(absl::StrCat("GET ", url, ": the server ended the stream (HTTP ",
                                             status, ") before the awaited line arrived"));
}

}  // namespace tidepool::testing

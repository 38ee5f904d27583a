#pragma once

// HTTPS to the API server with libcurl: TLS material from memory (blobs), bearer tokens
// re-read when their file changes, a pool of easy handles (connections and TLS sessions
// are reused; each call has a handle of its own, so calls may run concurrently), request
// timeouts, and streaming responses that a stop token ends at once.

#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "k8s/config.h"

namespace tidepool::k8s {

struct HttpRequest {
  std::string method = "GET";
  std::string path;  // path and query: /api/v1/namespaces?limit=10
  std::string body;
  std::string content_type = "application/json";  // sent when body is not empty
  // Zero: the config's timeout. absl::InfiniteDuration(): none.
  absl::Duration timeout = absl::ZeroDuration();
};

struct HttpResponse {
  long status = 0;
  std::string body;
};

// A bearer token: fixed, or read from a file and re-read whenever the file changes
// (mtime, size or inode); the last good token is kept while the file is briefly missing.
class TokenSource {
 public:
  TokenSource(std::string fixed_token, std::string token_file)
      : fixed_(std::move(fixed_token)), file_(std::move(token_file)) {}
  absl::StatusOr<std::string> Token();

 private:
  const std::string fixed_;
  const std::string file_;
  absl::Mutex mutex_;
  std::string file_token_ ABSL_GUARDED_BY(mutex_);
  int64_t mtime_ns_ ABSL_GUARDED_BY(mutex_) = -1;
  int64_t size_ ABSL_GUARDED_BY(mutex_) = -1;
  uint64_t inode_ ABSL_GUARDED_BY(mutex_) = 0;
};

class Transport {
 public:
  explicit Transport(ClientConfig config);
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // The response, whatever its HTTP status. Errors only for transport failures:
  // DeadlineExceeded for a timeout, Unavailable otherwise.
  absl::StatusOr<HttpResponse> Send(const HttpRequest& request);

  // A streaming request: a 2xx body goes to `on_data` chunk by chunk as it arrives.
  // OK when the server ended the response or `on_data` returned false; Cancelled at once
  // when `stop` is requested (the transfer is woken, not polled); the API error
  // (StatusFromResponse) for a non-2xx status; DeadlineExceeded / Unavailable for
  // transport failures.
  absl::Status Stream(const HttpRequest& request,
                      const std::function<bool(absl::string_view chunk)>& on_data,
                      const std::stop_token& stop = {});

  const ClientConfig& config() const { return config_; }

 private:
  struct Handle;
  std::unique_ptr<Handle> Acquire();
  void Release(std::unique_ptr<Handle> handle);
  absl::Status Prepare(Handle& handle, const HttpRequest& request, const std::string& url);

  const ClientConfig config_;
  // The URL prefix requests go to, and (with tls_server_name) where to really connect.
  std::string base_url_;
  std::string connect_to_;
  absl::Mutex pool_mutex_;
  std::vector<std::unique_ptr<Handle>> pool_ ABSL_GUARDED_BY(pool_mutex_);
  TokenSource token_;
};

}  // namespace tidepool::k8s

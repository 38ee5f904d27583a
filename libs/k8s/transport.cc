#include "k8s/transport.h"

#include <curl/curl.h>
#include <sys/stat.h>

#include <fstream>
#include <mutex>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/curl_trust.h"
#include "k8s/errors.h"

namespace tidepool::k8s {
namespace {

constexpr size_t kMaxIdleHandles = 16;

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

size_t AppendBody(char* data, size_t size, size_t count, void* body) {
  static_cast<std::string*>(body)->append(data, size * count);
  return size * count;
}

struct StreamState {
  CURL* curl = nullptr;
  const std::function<bool(absl::string_view)>* on_data = nullptr;
  std::stop_token stop;
  std::string error_body;
  bool http_error = false;
  bool stopped_by_consumer = false;
  bool cancelled = false;
};

size_t StreamWrite(char* data, size_t size, size_t count, void* user) {
  auto* state = static_cast<StreamState*>(user);
  const size_t bytes = size * count;
  long status = 0;
  curl_easy_getinfo(state->curl, CURLINFO_RESPONSE_CODE, &status);
  if (status < 200 || status > 299) {
    state->http_error = true;
    if (state->error_body.size() < (1 << 20)) state->error_body.append(data, bytes);
    return bytes;
  }
  if (state->stop.stop_requested()) {
    state->cancelled = true;
    return 0;
  }
  if (!(*state->on_data)(absl::string_view(data, bytes))) {
    state->stopped_by_consumer = true;
    return 0;
  }
  return bytes;
}

int StreamProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* state = static_cast<StreamState*>(user);
  if (state->stop.stop_requested()) {
    state->cancelled = true;
    return 1;
  }
  return 0;
}

absl::Status CurlError(CURLcode code, absl::string_view method, absl::string_view path,
                       const char* detail) {
  const std::string what =
      absl::StrCat(method, " ", path, ": ", curl_easy_strerror(code),
                   (detail != nullptr && *detail != '\0') ? absl::StrCat(" (", detail, ")") : "");
  if (code == CURLE_OPERATION_TIMEDOUT) return absl::DeadlineExceededError(what);
  return absl::UnavailableError(what);
}

// curl_easy_perform, but through a multi handle that a stop request wakes at once
// (curl_multi_wakeup from a stop_callback); the progress callback, called about once a
// second, is the backstop.
CURLcode PerformUntilStopped(CURL* easy, const std::stop_token& stop, bool& cancelled) {
  CURLM* multi = curl_multi_init();
  if (multi == nullptr) return curl_easy_perform(easy);
  if (curl_multi_add_handle(multi, easy) != CURLM_OK) {
    curl_multi_cleanup(multi);
    return curl_easy_perform(easy);
  }
  CURLcode result = CURLE_OK;
  {
    std::stop_callback wake(stop, [multi] { curl_multi_wakeup(multi); });
    int running = 1;
    while (true) {
      if (curl_multi_perform(multi, &running) != CURLM_OK) {
        result = CURLE_RECV_ERROR;
        break;
      }
      if (running == 0) {
        int queued = 0;
        for (CURLMsg* msg = curl_multi_info_read(multi, &queued); msg != nullptr;
             msg = curl_multi_info_read(multi, &queued)) {
          if (msg->msg == CURLMSG_DONE && msg->easy_handle == easy) result = msg->data.result;
        }
        break;
      }
      if (stop.stop_requested()) {
        cancelled = true;
        result = CURLE_ABORTED_BY_CALLBACK;
        break;
      }
      curl_multi_poll(multi, nullptr, 0, 1000, nullptr);
    }
  }  // the stop callback is gone before the multi handle
  curl_multi_remove_handle(multi, easy);
  curl_multi_cleanup(multi);
  return result;
}

}  // namespace

struct Transport::Handle {
  CURL* curl = nullptr;
  curl_slist* headers = nullptr;
  curl_slist* connect_to = nullptr;
  char error[CURL_ERROR_SIZE] = {};
  ~Handle() {
    if (headers != nullptr) curl_slist_free_all(headers);
    if (connect_to != nullptr) curl_slist_free_all(connect_to);
    if (curl != nullptr) curl_easy_cleanup(curl);
  }
};

Transport::Transport(ClientConfig config)
    : config_(std::move(config)),
      base_url_(config_.server),
      token_(config_.token, config_.token_file) {
  GlobalInit();
  // tls-server-name: ask for that name (SNI, certificate check) but connect to the
  // configured host, as client-go does.
  if (!config_.tls_server_name.empty() && absl::StartsWith(config_.server, "https://")) {
    const std::string rest = config_.server.substr(8);
    const size_t slash = rest.find('/');
    const std::string authority = rest.substr(0, slash);
    const std::string suffix = slash == std::string::npos ? "" : rest.substr(slash);
    std::string host = authority;
    std::string port = "443";
    const size_t colon = authority.rfind(':');
    if (colon != std::string::npos && authority.find(']', colon) == std::string::npos) {
      host = authority.substr(0, colon);
      port = authority.substr(colon + 1);
    }
    base_url_ = absl::StrCat("https://", config_.tls_server_name, ":", port, suffix);
    connect_to_ = absl::StrCat(config_.tls_server_name, ":", port, ":", host, ":", port);
  }
}

Transport::~Transport() = default;

std::unique_ptr<Transport::Handle> Transport::Acquire() {
  {
    absl::MutexLock lock(&pool_mutex_);
    if (!pool_.empty()) {
      std::unique_ptr<Handle> handle = std::move(pool_.back());
      pool_.pop_back();
      curl_easy_reset(handle->curl);
      return handle;
    }
  }
  auto handle = std::make_unique<Handle>();
  handle->curl = curl_easy_init();
  if (handle->curl == nullptr) return nullptr;
  return handle;
}

void Transport::Release(std::unique_ptr<Handle> handle) {
  if (handle == nullptr) return;
  if (handle->headers != nullptr) {
    curl_slist_free_all(handle->headers);
    handle->headers = nullptr;
  }
  if (handle->connect_to != nullptr) {
    curl_slist_free_all(handle->connect_to);
    handle->connect_to = nullptr;
  }
  absl::MutexLock lock(&pool_mutex_);
  if (pool_.size() < kMaxIdleHandles) pool_.push_back(std::move(handle));
}

absl::StatusOr<std::string> TokenSource::Token() {
  if (file_.empty()) return fixed_;
  struct stat st {};
  absl::MutexLock lock(&mutex_);
  if (stat(file_.c_str(), &st) != 0) {
    if (!file_token_.empty()) return file_token_;  // keep the last one while it rotates
    return absl::UnauthenticatedError(absl::StrCat("cannot read the token file ", file_));
  }
  const int64_t mtime_ns =
      static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  if (mtime_ns != mtime_ns_ || st.st_size != size_ || st.st_ino != inode_) {
    std::ifstream in(file_, std::ios::binary);
    std::ostringstream content;
    content << in.rdbuf();
    if (in) {
      file_token_ = std::string(absl::StripAsciiWhitespace(content.str()));
      mtime_ns_ = mtime_ns;
      size_ = st.st_size;
      inode_ = st.st_ino;
    }
  }
  if (file_token_.empty()) return fixed_;
  return file_token_;
}

absl::Status Transport::Prepare(Handle& handle, const HttpRequest& request,
                                const std::string& url) {
  CURL* h = handle.curl;
  auto add_header = [&handle](const std::string& line) {
    handle.headers = curl_slist_append(handle.headers, line.c_str());
  };
  add_header("Accept: application/json");
  if (!request.body.empty()) add_header(absl::StrCat("Content-Type: ", request.content_type));
  absl::StatusOr<std::string> token = token_.Token();
  if (!token.ok()) return token.status();
  if (!token->empty()) add_header(absl::StrCat("Authorization: Bearer ", *token));
  add_header("Expect:");

  handle.error[0] = '\0';
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, handle.error);
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_USERAGENT, config_.user_agent.c_str());
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, handle.headers);
  if (!connect_to_.empty()) {
    handle.connect_to = curl_slist_append(nullptr, connect_to_.c_str());
    curl_easy_setopt(h, CURLOPT_CONNECT_TO, handle.connect_to);
  }
  curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(absl::ToInt64Milliseconds(config_.connect_timeout)));
  const absl::Duration timeout =
      request.timeout == absl::ZeroDuration() ? config_.timeout : request.timeout;
  if (timeout != absl::InfiniteDuration() && timeout > absl::ZeroDuration()) {
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(absl::ToInt64Milliseconds(timeout)));
  }
  if (request.method == "GET") {
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
  } else {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  if (!request.body.empty()) {
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, static_cast<long>(request.body.size()));
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.data());  // outlives the perform
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }

  // TLS from memory: the blobs are copied by libcurl. The kubeconfig's CA is the only one
  // trusted, as with client-go.
  if (!config_.ca_pem.empty()) {
    if (absl::Status trusted = common::TrustOnlyCa(h, config_.ca_pem); !trusted.ok()) {
      return trusted;
    }
  }
  if (!config_.client_cert_pem.empty()) {
    curl_blob cert{const_cast<char*>(config_.client_cert_pem.data()),
                   config_.client_cert_pem.size(), CURL_BLOB_COPY};
    curl_blob key{const_cast<char*>(config_.client_key_pem.data()), config_.client_key_pem.size(),
                  CURL_BLOB_COPY};
    curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
    curl_easy_setopt(h, CURLOPT_SSLCERT_BLOB, &cert);
    curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
    curl_easy_setopt(h, CURLOPT_SSLKEY_BLOB, &key);
  }
  const bool verify = !config_.insecure_skip_tls_verify;
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, verify ? 1L : 0L);
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, verify ? 2L : 0L);
  return absl::OkStatus();
}

absl::StatusOr<HttpResponse> Transport::Send(const HttpRequest& request) {
  std::unique_ptr<Handle> handle = Acquire();
  if (handle == nullptr) return absl::InternalError("curl_easy_init failed");
  const std::string url = absl::StrCat(base_url_, request.path);
  if (absl::Status s = Prepare(*handle, request, url); !s.ok()) return s;
  HttpResponse response;
  curl_easy_setopt(handle->curl, CURLOPT_WRITEFUNCTION, AppendBody);
  curl_easy_setopt(handle->curl, CURLOPT_WRITEDATA, &response.body);
  const CURLcode code = curl_easy_perform(handle->curl);
  if (code != CURLE_OK) {
    absl::Status error = CurlError(code, request.method, request.path, handle->error);
    // A handle whose transfer failed may hold a broken connection: do not pool it.
    return error;
  }
  curl_easy_getinfo(handle->curl, CURLINFO_RESPONSE_CODE, &response.status);
  Release(std::move(handle));
  return response;
}

absl::Status Transport::Stream(const HttpRequest& request,
                               const std::function<bool(absl::string_view)>& on_data,
                               const std::stop_token& stop) {
  if (stop.stop_requested()) return absl::CancelledError("stopped");
  std::unique_ptr<Handle> handle = Acquire();
  if (handle == nullptr) return absl::InternalError("curl_easy_init failed");
  const std::string url = absl::StrCat(base_url_, request.path);
  if (absl::Status s = Prepare(*handle, request, url); !s.ok()) return s;
  StreamState state;
  state.curl = handle->curl;
  state.on_data = &on_data;
  state.stop = stop;
  CURL* h = handle->curl;
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, StreamWrite);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &state);
  // A stream has a connection of its own anyway (one handle each): plain HTTP/1.1.
  curl_easy_setopt(h, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, StreamProgress);
  curl_easy_setopt(h, CURLOPT_XFERINFODATA, &state);
  const CURLcode code = PerformUntilStopped(h, stop, state.cancelled);
  if (state.cancelled) return absl::CancelledError(absl::StrCat(request.path, ": stopped"));
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  if (state.http_error) {
    return StatusFromResponse(status, state.error_body,
                              absl::StrCat(request.method, " ", request.path));
  }
  if (state.stopped_by_consumer) return absl::OkStatus();
  if (code != CURLE_OK) return CurlError(code, request.method, request.path, handle->error);
  return absl::OkStatus();
}

}  // namespace tidepool::k8s

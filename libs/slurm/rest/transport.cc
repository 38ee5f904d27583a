#include "slurm/rest/transport.h"

#include <curl/curl.h>

#include <algorithm>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/curl_trust.h"

namespace tidepool::slurm::rest {
namespace {

struct CurlGlobal {
  CurlGlobal() { curl_global_init(CURL_GLOBAL_DEFAULT); }
};

void EnsureCurlGlobal() {
  static CurlGlobal* const global = new CurlGlobal();
  (void)global;
}

struct CurlDeleter {
  void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
};
struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

size_t AppendBody(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

long Millis(absl::Duration d) {
  return static_cast<long>(std::max<int64_t>(1, absl::ToInt64Milliseconds(d)));
}

class CurlTransport final : public Transport {
 public:
  explicit CurlTransport(CurlTransportOptions options) : options_(std::move(options)) {
    EnsureCurlGlobal();
    std::string base = options_.base_url;
    if (base.empty()) base = "http://localhost";
    while (!base.empty() && base.back() == '/') base.pop_back();
    base_ = std::move(base);
  }

  std::string Describe() const override {
    if (!options_.unix_socket.empty()) return absl::StrCat("unix:", options_.unix_socket);
    if (!options_.connect_to.empty()) return absl::StrCat(base_, " (at ", options_.connect_to, ")");
    return base_;
  }

  absl::StatusOr<HttpResponse> Send(const HttpRequest& request) override {
    std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
    if (curl == nullptr) return absl::InternalError("curl_easy_init failed");
    CURL* c = curl.get();
    const std::string url = absl::StrCat(base_, request.path);
    HttpResponse response;
    char error[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, Millis(options_.connect_timeout));
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, Millis(request.timeout));
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &AppendBody);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &response.body);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    if (!options_.unix_socket.empty()) {
      curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, options_.unix_socket.c_str());
    }
    if (!options_.ca_pem.empty()) {
      if (absl::Status trusted = common::TrustOnlyCa(c, options_.ca_pem); !trusted.ok()) {
        return trusted;
      }
    }
    std::unique_ptr<curl_slist, SlistDeleter> connect_to(
        options_.connect_to.empty() ? nullptr
                                    : curl_slist_append(nullptr, options_.connect_to.c_str()));
    if (connect_to != nullptr &&
        curl_easy_setopt(c, CURLOPT_CONNECT_TO, connect_to.get()) != CURLE_OK) {
      return absl::InternalError(
          absl::StrCat("libcurl cannot connect to ", options_.connect_to, " instead"));
    }
    curl_slist* raw_headers = nullptr;
    for (const Header& h : request.headers) {
      raw_headers = curl_slist_append(raw_headers, absl::StrCat(h.first, ": ", h.second).c_str());
    }
    raw_headers = curl_slist_append(raw_headers, "Accept: application/json");
    if (!request.body.empty()) {
      raw_headers = curl_slist_append(raw_headers, "Content-Type: application/json");
    }
    std::unique_ptr<curl_slist, SlistDeleter> headers(raw_headers);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
    if (request.method == "GET") {
      curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
    } else {
      curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, request.method.c_str());
      if (!request.body.empty() || request.method == "POST") {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, request.body.c_str());
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
                         static_cast<curl_off_t>(request.body.size()));
      }
    }
    const CURLcode code = curl_easy_perform(c);
    if (code != CURLE_OK) {
      const std::string what =
          absl::StrCat(request.method, " ", request.path, " to ", Describe(), ": ",
                       error[0] != '\0' ? error : curl_easy_strerror(code));
      switch (code) {
        case CURLE_OPERATION_TIMEDOUT:
          return absl::DeadlineExceededError(what);
        case CURLE_COULDNT_CONNECT:
        case CURLE_COULDNT_RESOLVE_HOST:
        case CURLE_SEND_ERROR:
        case CURLE_RECV_ERROR:
        case CURLE_GOT_NOTHING:
        case CURLE_PARTIAL_FILE:
          return absl::UnavailableError(absl::StrCat("slurmrestd unreachable: ", what));
        // A renewed certificate the caller does not know yet: it may look again.
        case CURLE_PEER_FAILED_VERIFICATION:
        case CURLE_SSL_CONNECT_ERROR:
          return absl::UnavailableError(absl::StrCat("slurmrestd's TLS refused: ", what));
        default:
          return absl::InternalError(what);
      }
    }
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    response.status = static_cast<int>(status);
    return response;
  }

 private:
  CurlTransportOptions options_;
  std::string base_;
};

}  // namespace

std::unique_ptr<Transport> NewCurlTransport(CurlTransportOptions options) {
  return std::make_unique<CurlTransport>(std::move(options));
}

}  // namespace tidepool::slurm::rest

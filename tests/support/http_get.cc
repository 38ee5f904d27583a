#include "support/http_get.h"

#include <curl/curl.h>

#include <memory>

#include "absl/strings/str_cat.h"
#include "common/curl_trust.h"

namespace tidepool::testing {
namespace {

size_t AppendBody(char* data, size_t size, size_t count, void* body) {
  static_cast<std::string*>(body)->append(data, size * count);
  return size * count;
}

}  // namespace

absl::StatusOr<HttpResponse> HttpGet(const std::string& url, absl::Duration timeout,
                                     const std::vector<std::string>& headers,
                                     const HttpsTrust& trust) {
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return absl::InternalError("curl_easy_init failed");
  HttpResponse response;
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS,
                   static_cast<long>(absl::ToInt64Milliseconds(timeout)));
  curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, AppendBody);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &response.body);
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> header_list(nullptr,
                                                                          curl_slist_free_all);
  for (const std::string& header : headers) {
    header_list.reset(curl_slist_append(header_list.release(), header.c_str()));
  }
  if (header_list) curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, header_list.get());
  if (!trust.ca_pem.empty()) {
    if (absl::Status trusted = common::TrustOnlyCa(curl.get(), trust.ca_pem); !trusted.ok()) {
      return trusted;
    }
  }
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> connect_to(
      trust.connect_to.empty() ? nullptr : curl_slist_append(nullptr, trust.connect_to.c_str()),
      curl_slist_free_all);
  if (connect_to) curl_easy_setopt(curl.get(), CURLOPT_CONNECT_TO, connect_to.get());
  const CURLcode code = curl_easy_perform(curl.get());
  if (code != CURLE_OK) {
    return absl::UnavailableError(absl::StrCat("GET ", url, ": ", curl_easy_strerror(code)));
  }
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &response.status);
  char* content_type = nullptr;
  curl_easy_getinfo(curl.get(), CURLINFO_CONTENT_TYPE, &content_type);
  if (content_type != nullptr) response.content_type = content_type;
  return response;
}

}  // namespace tidepool::testing

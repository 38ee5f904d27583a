#include "common/curl_trust.h"

#include "absl/strings/str_cat.h"

namespace tidepool::common {

absl::Status TrustOnlyCa(CURL* curl, const std::string& ca_pem) {
  curl_blob blob{
      .data = const_cast<char*>(ca_pem.data()), .len = ca_pem.size(), .flags = CURL_BLOB_COPY};
  for (const auto& [option, set] :
       {std::pair{"CURLOPT_CAINFO_BLOB", curl_easy_setopt(curl, CURLOPT_CAINFO_BLOB, &blob)},
        {"CURLOPT_CAINFO", curl_easy_setopt(curl, CURLOPT_CAINFO, nullptr)},
        {"CURLOPT_CAPATH", curl_easy_setopt(curl, CURLOPT_CAPATH, nullptr)}}) {
    if (set != CURLE_OK) {
      return absl::InternalError(absl::StrCat("libcurl cannot set ", option, ": ",
                                              curl_easy_strerror(set),
                                              "; refusing to trust the system's CAs instead"));
    }
  }
  return absl::OkStatus();
}

}  // namespace tidepool::common

#include "slurm/conf/content_hash.h"

#include <openssl/evp.h>

#include <algorithm>
#include <memory>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace tidepool::slurm {

std::string ContentHash(std::vector<std::pair<std::string, std::string>> files) {
  std::sort(files.begin(), files.end());
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(),
                                                                  EVP_MD_CTX_free);
  EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr);
  for (const auto& [name, content] : files) {
    // Lengths first, so that no two different file sets produce the same byte stream.
    const std::string framing = absl::StrCat(name.size(), ":", name, ":", content.size(), ":");
    EVP_DigestUpdate(context.get(), framing.data(), framing.size());
    EVP_DigestUpdate(context.get(), content.data(), content.size());
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(context.get(), digest, &length);
  return absl::StrCat("sha256:", absl::BytesToHexString(absl::string_view(
                                     reinterpret_cast<const char*>(digest), length)));
}

}  // namespace tidepool::slurm

#include "slurm/rest/jwt_key_source.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "slurm/rest/read_file.h"

namespace tidepool::slurm::rest {
namespace {

class FixedJwtKeySource final : public JwtKeySource {
 public:
  FixedJwtKeySource(std::string key, std::string origin)
      : key_(std::move(key)), origin_(std::move(origin)) {}

  absl::StatusOr<std::string> Key() override { return key_; }
  std::string Describe() const override { return origin_; }

 private:
  const std::string key_;
  const std::string origin_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<JwtKeySource>> NewJwtKeyFileSource(std::string path) {
  absl::StatusOr<std::string> key = ReadWholeFile(path, "JWT key");
  if (!key.ok()) return key.status();
  if (key->empty()) return absl::InvalidArgumentError(absl::StrCat("JWT key ", path, " is empty"));
  return std::make_unique<FixedJwtKeySource>(*std::move(key), std::move(path));
}

std::unique_ptr<JwtKeySource> NewFixedJwtKeySource(std::string key) {
  return std::make_unique<FixedJwtKeySource>(std::move(key), "(in memory)");
}

}  // namespace tidepool::slurm::rest

#include "common/grpc_tls.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "common/secret_file.h"

namespace tidepool::common {
namespace {

absl::StatusOr<std::string> ReadFile(const std::string& path, absl::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot read the gRPC TLS ", what, " ", path, ": ", std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().empty()) {
    return absl::InvalidArgumentError(absl::StrCat("the gRPC TLS ", what, " ", path, " is empty"));
  }
  return text.str();
}

}  // namespace

absl::StatusOr<GrpcTls> LoadGrpcTlsDir(const std::string& dir) {
  const std::string key_path = absl::StrCat(dir, "/tls.key");
  absl::StatusOr<std::string> ca = ReadFile(absl::StrCat(dir, "/ca.crt"), "CA");
  if (!ca.ok()) return ca.status();
  absl::StatusOr<std::string> cert = ReadFile(absl::StrCat(dir, "/tls.crt"), "certificate");
  if (!cert.ok()) return cert.status();
  if (absl::Status mode = CheckSecretFileMode(key_path, "gRPC TLS key"); !mode.ok()) return mode;
  absl::StatusOr<std::string> key = ReadFile(key_path, "key");
  if (!key.ok()) return key.status();
  return GrpcTls{
      .ca_pem = *std::move(ca), .cert_pem = *std::move(cert), .key_pem = *std::move(key)};
}

}  // namespace tidepool::common

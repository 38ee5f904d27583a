#include "common/grpc_tls.h"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "common/secret_file.h"
#include "openssl/pem.h"
#include "openssl/x509.h"

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

using Bio = std::unique_ptr<BIO, decltype(&BIO_free)>;
using Certificate = std::unique_ptr<X509, decltype(&X509_free)>;
using PrivateKey = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;

Bio Memory(const std::string& pem) {
  return Bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
}

// One of the certificates in ca.crt (a bundle may hold several) signed `cert`.
absl::Status CheckSignedByOneOf(X509& cert, const std::string& ca_pem, const std::string& dir) {
  Bio bundle = Memory(ca_pem);
  int read = 0;
  while (true) {
    Certificate ca(PEM_read_bio_X509(bundle.get(), nullptr, nullptr, nullptr), &X509_free);
    if (ca == nullptr) break;
    ++read;
    PrivateKey ca_key(X509_get_pubkey(ca.get()), &EVP_PKEY_free);
    if (ca_key != nullptr && X509_verify(&cert, ca_key.get()) == 1) return absl::OkStatus();
  }
  if (read == 0) return absl::InvalidArgumentError(dir + "/ca.crt is not a PEM certificate");
  return absl::InvalidArgumentError(dir + "/tls.crt is not signed by " + dir + "/ca.crt");
}

}  // namespace

absl::Status CheckTlsMaterial(const GrpcTls& tls, const std::string& dir) {
  Certificate cert(PEM_read_bio_X509(Memory(tls.cert_pem).get(), nullptr, nullptr, nullptr),
                   &X509_free);
  if (cert == nullptr) return absl::InvalidArgumentError(dir + "/tls.crt is not a PEM certificate");
  PrivateKey key(PEM_read_bio_PrivateKey(Memory(tls.key_pem).get(), nullptr, nullptr, nullptr),
                 &EVP_PKEY_free);
  if (key == nullptr) return absl::InvalidArgumentError(dir + "/tls.key is not a PEM private key");
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    return absl::InvalidArgumentError(dir + "/tls.key is not the key of " + dir + "/tls.crt");
  }
  return CheckSignedByOneOf(*cert, tls.ca_pem, dir);
}

absl::StatusOr<absl::Time> CertificateNotAfter(const std::string& cert_pem) {
  Certificate cert(PEM_read_bio_X509(Memory(cert_pem).get(), nullptr, nullptr, nullptr),
                   &X509_free);
  if (cert == nullptr) return absl::InvalidArgumentError("not a PEM certificate");
  std::tm not_after{};
  if (ASN1_TIME_to_tm(X509_get0_notAfter(cert.get()), &not_after) != 1) {
    return absl::InvalidArgumentError("the certificate's notAfter is not a time");
  }
  return absl::FromTimeT(timegm(&not_after));
}

absl::StatusOr<GrpcTls> LoadGrpcTlsDir(const std::string& dir, absl::Duration reload_every) {
  const std::string key_path = absl::StrCat(dir, "/tls.key");
  absl::StatusOr<std::string> ca = ReadFile(absl::StrCat(dir, "/ca.crt"), "CA");
  if (!ca.ok()) return ca.status();
  absl::StatusOr<std::string> cert = ReadFile(absl::StrCat(dir, "/tls.crt"), "certificate");
  if (!cert.ok()) return cert.status();
  if (absl::Status mode = CheckSecretFileMode(key_path, "gRPC TLS key"); !mode.ok()) return mode;
  absl::StatusOr<std::string> key = ReadFile(key_path, "key");
  if (!key.ok()) return key.status();
  GrpcTls tls{.ca_pem = *std::move(ca),
              .cert_pem = *std::move(cert),
              .key_pem = *std::move(key),
              .dir = dir,
              .reload_every = reload_every};
  if (absl::Status pair = CheckTlsMaterial(tls, dir); !pair.ok()) return pair;
  return tls;
}

}  // namespace tidepool::common

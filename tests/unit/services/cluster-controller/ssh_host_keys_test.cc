#include "ssh_host_keys.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <catch2/catch_test_macros.hpp>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "builder_test_support.h"

namespace tidepool::cluster {
namespace {

// The curve of a PEM private key, "" when it is not an EC key OpenSSL reads.
std::string CurveOf(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (key == nullptr) return "";
  char curve[64] = {};
  size_t length = 0;
  const bool ec = EVP_PKEY_get_base_id(key) == EVP_PKEY_EC &&
                  EVP_PKEY_get_utf8_string_param(key, "group", curve, sizeof(curve), &length) == 1;
  EVP_PKEY_free(key);
  return ec ? std::string(curve, length) : "";
}

TEST_CASE("a generated SSH host key is a new ECDSA P-256 key in PEM") {
  const absl::StatusOr<std::string> key = GenerateSshHostKey();
  REQUIRE(key.ok());
  CHECK(absl::StartsWith(*key, "-----BEGIN PRIVATE KEY-----\n"));
  CHECK(CurveOf(*key) == "prime256v1");
  CHECK(*GenerateSshHostKey() != *key);
}

TEST_CASE("the host key Secret is immutable, owned by the cluster and holds the key") {
  const v1::SlurmCluster cluster = ResearchCluster();
  const rapidjson::Document secret = Parse(SshHostKeySecretBody(cluster, "PEM"));
  CHECK(StringAt(secret, {"kind"}) == "Secret");
  CHECK(StringAt(secret, {"metadata", "name"}) == "research-login-host-keys");
  CHECK(StringAt(secret, {"metadata", "labels", "tidepool.dev/component"}) == "login");
  CHECK(StringAt(secret, {"metadata", "ownerReferences", "0", "uid"}) == "uid-1");
  CHECK(At(secret, {"immutable"})->GetBool());
  CHECK(StringAt(secret, {"data", "ssh_host_ecdsa_key"}) == absl::Base64Escape("PEM"));
}

TEST_CASE("an existing host key Secret is used only when the cluster controls it") {
  const v1::SlurmCluster cluster = ResearchCluster();
  CHECK(CheckSshHostKeySecret(cluster, SshHostKeySecretBody(cluster, "PEM")).usable);
  SECTION("someone else's") {
    v1::SlurmCluster other = ResearchCluster();
    other.mutable_metadata()->set_uid("uid-2");
    const SecretVerdict verdict =
        CheckSshHostKeySecret(cluster, SshHostKeySecretBody(other, "PEM"));
    CHECK_FALSE(verdict.usable);
    CHECK(absl::StrContains(verdict.problem, "\"research-login-host-keys\" is not controlled"));
  }
  SECTION("without the key") {
    const SecretVerdict verdict = CheckSshHostKeySecret(cluster, SshHostKeySecretBody(cluster, ""));
    CHECK_FALSE(verdict.usable);
    CHECK(absl::StrContains(verdict.problem, "has no data key \"ssh_host_ecdsa_key\""));
  }
}

}  // namespace
}  // namespace tidepool::cluster

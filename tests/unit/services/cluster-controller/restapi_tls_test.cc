#include "restapi_tls.h"

#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <catch2/catch_test_macros.hpp>
#include <ctime>
#include <memory>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "builder_test_support.h"
#include "common/grpc_tls.h"

namespace tidepool::cluster {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

struct X509Free {
  void operator()(X509* cert) const { X509_free(cert); }
};
using Certificate = std::unique_ptr<X509, X509Free>;

Certificate Read(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  Certificate cert(PEM_read_bio_X509(bio, nullptr, nullptr, nullptr));
  BIO_free(bio);
  REQUIRE(cert != nullptr);
  return cert;
}

bool Names(const std::string& cert_pem, const std::string& host) {
  return X509_check_host(Read(cert_pem).get(), host.data(), host.size(), 0, nullptr) == 1;
}

RestApiTls Generate(const v1::SlurmCluster& cluster, absl::Time now = kNow) {
  absl::StatusOr<RestApiTls> tls = GenerateRestApiTls(cluster, "cluster.local", now);
  REQUIRE(tls.ok());
  return *std::move(tls);
}

// The Secret's JSON with one data key replaced (or removed, for "").
std::string WithFile(const std::string& secret, const char* file, const std::string& content) {
  rapidjson::Document doc = Parse(secret);
  rapidjson::Value& data = doc["data"];
  data.RemoveMember(file);
  if (!content.empty()) {
    data.AddMember(rapidjson::Value(file, doc.GetAllocator()),
                   rapidjson::Value(absl::Base64Escape(content).c_str(), doc.GetAllocator()),
                   doc.GetAllocator());
  }
  return k8s::ToJson(doc);
}

TEST_CASE("a generated certificate names the Service and chains to a CA of its own") {
  const v1::SlurmCluster cluster = ResearchCluster();
  const RestApiTls tls = Generate(cluster);
  CHECK(common::CheckTlsMaterial(
            {.ca_pem = tls.ca_pem, .cert_pem = tls.cert_pem, .key_pem = tls.key_pem}, "generated")
            .ok());
  for (const char* host : {"research-restapi", "research-restapi.hpc", "research-restapi.hpc.svc",
                           "research-restapi.hpc.svc.cluster.local"}) {
    CAPTURE(host);
    CHECK(Names(tls.cert_pem, host));
  }
  CHECK_FALSE(Names(tls.cert_pem, "other-restapi.hpc.svc"));
  CHECK_FALSE(Names(tls.ca_pem, "research-restapi.hpc.svc"));
  const Certificate ca = Read(tls.ca_pem);
  const Certificate server = Read(tls.cert_pem);
  CHECK(X509_check_ca(ca.get()) == 1);
  CHECK(X509_check_ca(server.get()) == 0);
  CHECK(X509_check_purpose(server.get(), X509_PURPOSE_SSL_SERVER, 0) == 1);
  // Valid from before now (other clocks) for ten years.
  std::tm not_before{};
  REQUIRE(ASN1_TIME_to_tm(X509_get0_notBefore(server.get()), &not_before) == 1);
  CHECK(absl::FromTimeT(timegm(&not_before)) == kNow - absl::Hours(1));
  CHECK(*common::CertificateNotAfter(tls.cert_pem) == kNow + kRestApiTlsValidity);
  CHECK(absl::StartsWith(tls.key_pem, "-----BEGIN PRIVATE KEY-----\n"));
  // Every generation is new: a deleted Secret is replaced by another key.
  CHECK(Generate(cluster).key_pem != tls.key_pem);
}

TEST_CASE("the TLS Secret is a kubernetes.io/tls Secret owned by the cluster, not immutable") {
  const v1::SlurmCluster cluster = ResearchCluster();
  const RestApiTls tls{.ca_pem = "CA", .cert_pem = "CERT", .key_pem = "KEY"};
  const rapidjson::Document secret = Parse(RestApiTlsSecretBody(cluster, tls));
  CHECK(StringAt(secret, {"metadata", "name"}) == "research-restapi-tls");
  CHECK(StringAt(secret, {"metadata", "labels", "tidepool.dev/component"}) == "slurmrestd");
  CHECK(StringAt(secret, {"metadata", "ownerReferences", "0", "uid"}) == "uid-1");
  CHECK(StringAt(secret, {"type"}) == "kubernetes.io/tls");
  // Replaced by deletion: kubelet would keep serving a deleted immutable Secret to new pods.
  CHECK(At(secret, {"immutable"}) == nullptr);
  CHECK(StringAt(secret, {"data", "ca.crt"}) == absl::Base64Escape("CA"));
  CHECK(StringAt(secret, {"data", "tls.crt"}) == absl::Base64Escape("CERT"));
  CHECK(StringAt(secret, {"data", "tls.key"}) == absl::Base64Escape("KEY"));
}

TEST_CASE("an existing TLS Secret is used only when it is the cluster's and works") {
  const v1::SlurmCluster cluster = ResearchCluster();
  const RestApiTls tls = Generate(cluster);
  const std::string secret = RestApiTlsSecretBody(cluster, tls);
  const RestApiTlsVerdict usable = CheckRestApiTlsSecret(cluster, secret, kNow);
  CHECK(usable.verdict.usable);
  CHECK(usable.cert_digest == TlsCertDigest(tls.cert_pem));
  CHECK(absl::StartsWith(usable.cert_digest, "sha256:"));

  auto problem = [&](const std::string& json, absl::Time now = kNow) {
    const RestApiTlsVerdict verdict = CheckRestApiTlsSecret(cluster, json, now);
    CHECK_FALSE(verdict.verdict.usable);
    CHECK(verdict.cert_digest.empty());
    CHECK(absl::StrContains(verdict.verdict.problem, "Secret \"research-restapi-tls\" "));
    CHECK(absl::StrContains(verdict.verdict.problem, "delete it to have a new certificate"));
    // Never the key.
    CHECK_FALSE(absl::StrContains(verdict.verdict.problem, "PRIVATE KEY"));
    return verdict.verdict.problem;
  };
  SECTION("another cluster's") {
    v1::SlurmCluster other = ResearchCluster();
    other.mutable_metadata()->set_uid("uid-2");
    CHECK(absl::StrContains(problem(RestApiTlsSecretBody(other, tls)),
                            "is not controlled by SlurmCluster \"research\" (uid uid-1)"));
  }
  SECTION("a file missing") {
    for (const char* file : {kTlsCaFile, kTlsCertFile, kTlsKeyFile}) {
      CAPTURE(file);
      CHECK(absl::StrContains(problem(WithFile(secret, file, "")),
                              absl::StrCat("has no data key \"", file, "\"")));
    }
  }
  SECTION("a file that is not base64") {
    const std::string broken =
        absl::StrReplaceAll(secret, {{absl::Base64Escape(tls.key_pem), "*not base64*"}});
    CHECK(absl::StrContains(problem(broken), "has data key \"tls.key\" that is not base64"));
  }
  SECTION("a key of another certificate") {
    CHECK(absl::StrContains(problem(WithFile(secret, kTlsKeyFile, Generate(cluster).key_pem)),
                            "holds a wrong certificate (research-restapi-tls/tls.key is not the "
                            "key of research-restapi-tls/tls.crt)"));
  }
  SECTION("a certificate of another CA") {
    CHECK(absl::StrContains(problem(WithFile(secret, kTlsCaFile, Generate(cluster).ca_pem)),
                            "is not signed by"));
  }
  SECTION("a certificate for another Service") {
    v1::SlurmCluster renamed = ResearchCluster();
    renamed.mutable_metadata()->set_name("other");
    const RestApiTls others = Generate(renamed);
    CHECK(absl::StrContains(problem(RestApiTlsSecretBody(cluster, others)),
                            "holds a tls.crt that does not name research-restapi.hpc.svc"));
  }
  SECTION("a certificate that expires within 30 days") {
    CHECK(CheckRestApiTlsSecret(cluster, secret, kNow + kRestApiTlsValidity - absl::Hours(24 * 31))
              .verdict.usable);
    CHECK(absl::StrContains(
        problem(secret, kNow + kRestApiTlsValidity - absl::Hours(24 * 29)),
        absl::StrCat("holds a tls.crt that expires ",
                     absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", kNow + kRestApiTlsValidity,
                                      absl::UTCTimeZone()))));
  }
}

}  // namespace
}  // namespace tidepool::cluster

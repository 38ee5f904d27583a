#include "restapi_tls.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/grpc_tls.h"
#include "common/openssl_ptr.h"
#include "k8s/object_json.h"
#include "k8s/ownership.h"
#include "k8s/secret_data.h"
#include "manifest_writing.h"
#include "owned_metadata.h"
#include "slurm/conf/content_hash.h"
#include "tidepool/contract.h"
#include "tidepool/naming.h"

namespace tidepool::cluster {
namespace {

using k8s::JsonWriter;

using common::OpenSslPtr;
using Key = OpenSslPtr<EVP_PKEY>;
using Certificate = OpenSslPtr<X509>;

// Clocks of the nodes that check the certificate may be behind the controller's.
constexpr absl::Duration kBackdate = absl::Hours(1);

absl::Status OpenSslError(absl::string_view what) {
  return absl::InternalError(absl::StrCat("OpenSSL failed to ", what));
}

// Everything `write` puts into a memory BIO.
template <typename Write>
absl::StatusOr<std::string> Pem(absl::string_view what, Write write) {
  OpenSslPtr<BIO> bio(BIO_new(BIO_s_mem()));
  if (bio == nullptr || write(bio.get()) != 1) return OpenSslError(absl::StrCat("write ", what));
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  if (size <= 0 || data == nullptr) return OpenSslError(absl::StrCat("write ", what));
  return std::string(data, static_cast<size_t>(size));
}

// An extension in openssl.cnf syntax; `issuer` is the certificate itself when self-signed.
absl::Status AddExtension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX context;
  X509V3_set_ctx_nodb(&context);
  X509V3_set_ctx(&context, issuer, cert, nullptr, nullptr, 0);
  OpenSslPtr<X509_EXTENSION> extension(X509V3_EXT_conf_nid(nullptr, &context, nid, value.c_str()));
  if (extension == nullptr || X509_add_ext(cert, extension.get(), -1) != 1) {
    return OpenSslError(absl::StrCat("add the extension ", OBJ_nid2sn(nid), "=", value));
  }
  return absl::OkStatus();
}

struct CertificateShape {
  const char* common_name;
  std::vector<std::pair<int, std::string>> extensions;
};

// A certificate of `key` for `shape`, signed by `issuer_key` (with `issuer`, or self-signed
// when it is null), valid from `now` - kBackdate for kRestApiTlsValidity.
absl::StatusOr<Certificate> Issue(const CertificateShape& shape, EVP_PKEY* key, X509* issuer,
                                  EVP_PKEY* issuer_key, absl::Time now) {
  Certificate cert(X509_new());
  if (cert == nullptr || X509_set_version(cert.get(), 2) != 1) return OpenSslError("make a cert");
  OpenSslPtr<BIGNUM> serial(BN_new());
  if (serial == nullptr || BN_rand(serial.get(), 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) != 1 ||
      BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert.get())) == nullptr) {
    return OpenSslError("draw a serial number");
  }
  if (ASN1_TIME_set(X509_getm_notBefore(cert.get()), absl::ToTimeT(now - kBackdate)) == nullptr ||
      ASN1_TIME_set(X509_getm_notAfter(cert.get()), absl::ToTimeT(now + kRestApiTlsValidity)) ==
          nullptr) {
    return OpenSslError("set the validity");
  }
  X509_NAME* subject = X509_get_subject_name(cert.get());
  if (X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_UTF8,
                                 reinterpret_cast<const unsigned char*>(shape.common_name), -1, -1,
                                 0) != 1 ||
      X509_set_issuer_name(cert.get(),
                           issuer != nullptr ? X509_get_subject_name(issuer) : subject) != 1 ||
      X509_set_pubkey(cert.get(), key) != 1) {
    return OpenSslError("name the certificate");
  }
  for (const auto& [nid, value] : shape.extensions) {
    X509* signer = issuer != nullptr ? issuer : cert.get();
    if (absl::Status added = AddExtension(cert.get(), signer, nid, value); !added.ok()) {
      return added;
    }
  }
  if (X509_sign(cert.get(), issuer_key, EVP_sha256()) <= 0) return OpenSslError("sign");
  return cert;
}

absl::StatusOr<std::string> CertificatePem(X509* cert) {
  return Pem("a certificate", [&](BIO* bio) { return PEM_write_bio_X509(bio, cert); });
}

// The name the syncer checks the certificate for: <cluster>-restapi.<namespace>.svc.
std::string ServiceHost(const v1::SlurmCluster& cluster) {
  return absl::StrCat(api::RestApiName(cluster.metadata().name()), ".",
                      cluster.metadata().namespace_(), ".svc");
}

// What makes the certificate unusable for the cluster's Service; "" when it is usable.
// A verb phrase, as the Secret's problem: "holds a tls.crt that …".
std::string CertificateProblem(const RestApiTls& tls, const std::string& service_name,
                               const std::string& secret_name, absl::Time now) {
  if (absl::Status material = common::CheckTlsMaterial(
          {.ca_pem = tls.ca_pem, .cert_pem = tls.cert_pem, .key_pem = tls.key_pem}, secret_name);
      !material.ok()) {
    return absl::StrCat("holds a wrong certificate (", material.message(), ")");
  }
  OpenSslPtr<BIO> bio(BIO_new_mem_buf(tls.cert_pem.data(), static_cast<int>(tls.cert_pem.size())));
  Certificate cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (cert == nullptr || X509_check_host(cert.get(), service_name.data(), service_name.size(),
                                         X509_CHECK_FLAG_NEVER_CHECK_SUBJECT, nullptr) != 1) {
    return absl::StrCat("holds a tls.crt that does not name ", service_name);
  }
  absl::StatusOr<absl::Time> not_after = common::CertificateNotAfter(tls.cert_pem);
  if (!not_after.ok()) return absl::StrCat("holds a tls.crt that ", not_after.status().message());
  if (*not_after - now < kRestApiTlsRenewBefore) {
    return absl::StrCat("holds a tls.crt that expires ",
                        absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", *not_after, absl::UTCTimeZone()));
  }
  return "";
}

}  // namespace

std::vector<std::string> RestApiDnsNames(const v1::SlurmCluster& cluster,
                                         absl::string_view cluster_domain) {
  const std::string service = api::RestApiName(cluster.metadata().name());
  const std::string& ns = cluster.metadata().namespace_();
  return {service, absl::StrCat(service, ".", ns), ServiceHost(cluster),
          absl::StrCat(ServiceHost(cluster), ".", cluster_domain)};
}

absl::StatusOr<RestApiTls> GenerateRestApiTls(const v1::SlurmCluster& cluster,
                                              absl::string_view cluster_domain, absl::Time now) {
  Key ca_key(EVP_EC_gen("P-256"));
  Key server_key(EVP_EC_gen("P-256"));
  if (ca_key == nullptr || server_key == nullptr) return OpenSslError("generate a P-256 key");
  absl::StatusOr<Certificate> ca =
      Issue({.common_name = "tidepool slurmrestd CA",
             .extensions = {{NID_basic_constraints, "critical,CA:TRUE,pathlen:0"},
                            {NID_key_usage, "critical,keyCertSign,cRLSign"},
                            {NID_subject_key_identifier, "hash"}}},
            ca_key.get(), nullptr, ca_key.get(), now);
  if (!ca.ok()) return ca.status();
  std::vector<std::string> names;
  for (const std::string& name : RestApiDnsNames(cluster, cluster_domain)) {
    names.push_back(absl::StrCat("DNS:", name));
  }
  absl::StatusOr<Certificate> server =
      Issue({.common_name = "slurmrestd",
             .extensions = {{NID_basic_constraints, "critical,CA:FALSE"},
                            {NID_key_usage, "critical,digitalSignature"},
                            {NID_ext_key_usage, "serverAuth"},
                            {NID_subject_alt_name, absl::StrJoin(names, ",")},
                            {NID_authority_key_identifier, "keyid:always"}}},
            server_key.get(), ca->get(), ca_key.get(), now);
  if (!server.ok()) return server.status();
  RestApiTls tls;
  absl::StatusOr<std::string> ca_pem = CertificatePem(ca->get());
  absl::StatusOr<std::string> cert_pem = CertificatePem(server->get());
  absl::StatusOr<std::string> key_pem = Pem("a private key", [&](BIO* bio) {
    return PEM_write_bio_PrivateKey(bio, server_key.get(), nullptr, nullptr, 0, nullptr, nullptr);
  });
  if (!ca_pem.ok()) return ca_pem.status();
  if (!cert_pem.ok()) return cert_pem.status();
  if (!key_pem.ok()) return key_pem.status();
  return RestApiTls{.ca_pem = *std::move(ca_pem),
                    .cert_pem = *std::move(cert_pem),
                    .key_pem = *std::move(key_pem)};
}

std::string TlsCertDigest(const std::string& cert_pem) {
  return slurm::ContentHash({{kTlsCertFile, cert_pem}});
}

std::string RestApiTlsSecretBody(const v1::SlurmCluster& cluster, const RestApiTls& tls) {
  return JsonObject([&](JsonWriter& w) {
    WriteTypeMeta(w, "v1", "Secret");
    WriteOwnedMetadata(w, cluster, api::RestApiTlsSecretName(cluster.metadata().name()),
                       api::kSlurmrestdComponent);
    k8s::WriteStringMember(w, "type", "kubernetes.io/tls");
    // Not immutable, unlike the other generated Secrets: it is replaced by deleting it, and
    // kubelet stops watching an immutable Secret, so a new pod on a node where an old one
    // still mounts it would get the deleted certificate (kubernetes/kubernetes#131589).
    w.Key("data");
    w.StartObject();
    k8s::WriteStringMember(w, kTlsCaFile, absl::Base64Escape(tls.ca_pem));
    k8s::WriteStringMember(w, kTlsCertFile, absl::Base64Escape(tls.cert_pem));
    k8s::WriteStringMember(w, kTlsKeyFile, absl::Base64Escape(tls.key_pem));
    w.EndObject();
  });
}

RestApiTlsVerdict CheckRestApiTlsSecret(const v1::SlurmCluster& cluster,
                                        absl::string_view secret_json, absl::Time now) {
  const std::string name = api::RestApiTlsSecretName(cluster.metadata().name());
  const std::string quoted = absl::StrCat("\"", name, "\"");
  auto unusable = [&](absl::string_view problem) {
    return RestApiTlsVerdict{
        .verdict = {.problem = absl::StrCat("Secret ", quoted, " ", problem,
                                            ", so slurmrestd is not served with it: delete it "
                                            "to have a new certificate generated")}};
  };
  if (!k8s::IsControlledByUid(secret_json, cluster.metadata().uid())) {
    return unusable(absl::StrCat("is not controlled by SlurmCluster \"", cluster.metadata().name(),
                                 "\" (uid ", cluster.metadata().uid(), ")"));
  }
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(secret_json, "Secret");
  if (!doc.ok()) return unusable("cannot be read as a Secret");
  RestApiTls tls;
  for (const auto& [file, content] : {std::pair{kTlsCaFile, &tls.ca_pem},
                                      {kTlsCertFile, &tls.cert_pem},
                                      {kTlsKeyFile, &tls.key_pem}}) {
    absl::StatusOr<std::string> value = k8s::SecretDataValue(*doc, file);
    if (!value.ok()) return unusable(value.status().message());
    *content = *std::move(value);
  }
  const std::string problem = CertificateProblem(tls, ServiceHost(cluster), name, now);
  if (!problem.empty()) return unusable(problem);
  return {.verdict = {.usable = true}, .cert_digest = TlsCertDigest(tls.cert_pem)};
}

}  // namespace tidepool::cluster

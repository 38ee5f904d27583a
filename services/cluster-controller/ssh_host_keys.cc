#include "ssh_host_keys.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "common/openssl_ptr.h"
#include "k8s/object_json.h"
#include "k8s/ownership.h"
#include "k8s/secret_data.h"
#include "manifest_writing.h"
#include "owned_metadata.h"
#include "tidepool/contract.h"
#include "tidepool/naming.h"

namespace tidepool::cluster {
namespace {

using k8s::JsonWriter;

}  // namespace

absl::StatusOr<std::string> GenerateSshHostKey() {
  // P-256: every OpenSSH client accepts it, and sshd reads it as PEM without conversion.
  common::OpenSslPtr<EVP_PKEY> key(EVP_EC_gen("P-256"));
  if (key == nullptr) return absl::InternalError("OpenSSL failed to generate an ECDSA P-256 key");
  common::OpenSslPtr<BIO> pem(BIO_new(BIO_s_mem()));
  if (pem == nullptr ||
      PEM_write_bio_PrivateKey(pem.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return absl::InternalError("OpenSSL failed to write the SSH host key as PEM");
  }
  char* data = nullptr;
  const long size = BIO_get_mem_data(pem.get(), &data);
  if (size <= 0 || data == nullptr) {
    return absl::InternalError("OpenSSL wrote an empty SSH host key");
  }
  return std::string(data, static_cast<size_t>(size));
}

std::string SshHostKeySecretBody(const v1::SlurmCluster& cluster,
                                 absl::string_view private_key_pem) {
  return JsonObject([&](JsonWriter& w) {
    WriteTypeMeta(w, "v1", "Secret");
    WriteOwnedMetadata(w, cluster, api::LoginHostKeysSecretName(cluster.metadata().name()),
                       api::kLoginComponent);
    k8s::WriteStringMember(w, "type", "Opaque");
    // A new host key would make every user's ssh warn of a man in the middle.
    w.Key("immutable");
    w.Bool(true);
    w.Key("data");
    w.StartObject();
    k8s::WriteStringMember(w, kSshHostKeyFile, absl::Base64Escape(private_key_pem));
    w.EndObject();
  });
}

SecretVerdict CheckSshHostKeySecret(const v1::SlurmCluster& cluster,
                                    absl::string_view secret_json) {
  const std::string name =
      absl::StrCat("\"", api::LoginHostKeysSecretName(cluster.metadata().name()), "\"");
  if (!k8s::IsControlledByUid(secret_json, cluster.metadata().uid())) {
    return {.problem = absl::StrCat("Secret ", name, " is not controlled by SlurmCluster \"",
                                    cluster.metadata().name(), "\" (uid ", cluster.metadata().uid(),
                                    "), so its key is not used as the login pods' SSH host key: "
                                    "delete it to have a new one generated")};
  }
  if (absl::StatusOr<std::string> key = k8s::SecretDataValue(secret_json, kSshHostKeyFile);
      !key.ok()) {
    return {.problem = absl::StrCat("Secret ", name, " ", key.status().message(),
                                    ": delete it to have a new one generated")};
  }
  return {.usable = true};
}

}  // namespace tidepool::cluster

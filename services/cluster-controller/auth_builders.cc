#include "auth_builders.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "k8s/object_json.h"
#include "k8s/ownership.h"
#include "k8s/secret_data.h"
#include "manifest_writing.h"
#include "owned_metadata.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "tidepool/contract.h"
#include "tidepool/naming.h"
#include "tidepool/resources.h"

namespace tidepool::cluster {
namespace {

using k8s::JsonWriter;

// munged refuses keys under 32 bytes; an HS256 key as short as that is already weak.
constexpr size_t kMinimumKeyBytes = 32;

// What is wrong with the key a Secret holds ("" when nothing), as the end of a sentence
// that starts with the Secret: its length at most, never its bytes.
std::string KeyProblem(const AuthKeyKind& kind, absl::string_view secret_json) {
  absl::StatusOr<std::string> key = k8s::SecretDataValue(secret_json, kind.data_key);
  if (!key.ok()) return std::string(key.status().message());
  if (key->size() < kind.minimum_bytes) {
    return absl::StrCat("holds a ", kind.what, " of ", key->size(), " bytes under \"",
                        kind.data_key, "\", fewer than the ", kind.minimum_bytes, " needed");
  }
  return "";
}

std::string Quoted(absl::string_view text) { return absl::StrCat("\"", text, "\""); }

}  // namespace

const AuthKeyKind& MungeKeyKind() {
  static constexpr AuthKeyKind kKind{
      .what = "munge key",
      .data_key = api::kMungeKeyFile,
      .component = api::kMungeKeyComponent,
      .spec_field = "spec.auth.mungeKeySecret",
      .generated_bytes = 1024,
      .minimum_bytes = kMinimumKeyBytes,
      .generated_name = api::MungeKeySecretName,
      .named_secret = [](const v1::AuthSpec& auth) -> const std::string& {
        return auth.munge_key_secret();
      }};
  return kKind;
}

const AuthKeyKind& JwtKeyKind() {
  static constexpr AuthKeyKind kKind{
      .what = "JWT key",
      .data_key = api::kJwtKeyFile,
      .component = api::kJwtKeyComponent,
      .spec_field = "spec.auth.jwtKeySecret",
      .generated_bytes = 64,
      .minimum_bytes = kMinimumKeyBytes,
      .generated_name = api::JwtKeySecretName,
      .named_secret = [](const v1::AuthSpec& auth) -> const std::string& {
        return auth.jwt_key_secret();
      }};
  return kKind;
}

AuthSecretRef AuthSecretOf(const v1::SlurmCluster& cluster, const AuthKeyKind& kind) {
  const std::string& named = kind.named_secret(cluster.spec().auth());
  if (!named.empty()) return {.name = named, .generated = false};
  return {.name = kind.generated_name(cluster.metadata().name()), .generated = true};
}

std::string GeneratedSecretBody(const v1::SlurmCluster& cluster, const AuthKeyKind& kind,
                                absl::string_view key) {
  return JsonObject([&](JsonWriter& w) {
    WriteTypeMeta(w, "v1", "Secret");
    WriteOwnedMetadata(w, cluster, kind.generated_name(cluster.metadata().name()), kind.component);
    k8s::WriteStringMember(w, "type", "Opaque");
    // A key in use is never replaced: a new one would lock out every daemon holding the old.
    w.Key("immutable");
    w.Bool(true);
    w.Key("data");
    w.StartObject();
    k8s::WriteStringMember(w, kind.data_key, absl::Base64Escape(key));
    w.EndObject();
  });
}

SecretVerdict CheckGeneratedSecret(const v1::SlurmCluster& cluster, const AuthKeyKind& kind,
                                   absl::string_view secret_json) {
  const std::string name = Quoted(kind.generated_name(cluster.metadata().name()));
  if (!k8s::IsControlledByUid(secret_json, cluster.metadata().uid())) {
    return {.problem =
                absl::StrCat("Secret ", name, " is not controlled by SlurmCluster ",
                             Quoted(cluster.metadata().name()), " (uid ", cluster.metadata().uid(),
                             "), so it is not used as its ", kind.what,
                             ": delete it to have a new one "
                             "generated, or name it in ",
                             kind.spec_field, " to use it as your own")};
  }
  const std::string problem = KeyProblem(kind, secret_json);
  if (!problem.empty()) {
    return {.problem = absl::StrCat("Secret ", name, " ", problem,
                                    ": delete it to have a new one generated")};
  }
  return {.usable = true};
}

SecretVerdict CheckUserSecret(const v1::SlurmCluster& cluster, const AuthKeyKind& kind,
                              absl::string_view secret_json) {
  const std::string problem = KeyProblem(kind, secret_json);
  if (problem.empty()) return {.usable = true};
  return {.problem =
              absl::StrCat("Secret ", Quoted(AuthSecretOf(cluster, kind).name), " named in ",
                           kind.spec_field, " ", problem, ": put the ", kind.what, " (at least ",
                           kind.minimum_bytes, " bytes) under data key \"", kind.data_key, "\"")};
}

SecretVerdict MissingUserSecret(const v1::SlurmCluster& cluster, const AuthKeyKind& kind) {
  return {.problem = absl::StrCat("Secret ", Quoted(AuthSecretOf(cluster, kind).name), " named in ",
                                  kind.spec_field, " does not exist in namespace ",
                                  Quoted(cluster.metadata().namespace_()), ": create it with the ",
                                  kind.what, " (at least ", kind.minimum_bytes,
                                  " bytes) under data key \"", kind.data_key, "\"")};
}

}  // namespace tidepool::cluster

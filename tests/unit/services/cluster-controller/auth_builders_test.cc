#include "auth_builders.h"

#include <catch2/catch_test_macros.hpp>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "builder_test_support.h"
#include "k8s/object_json.h"

namespace tidepool::cluster {
namespace {

v1::SlurmCluster Cluster() { return ResearchCluster(); }

// Recognisable key bytes, to look for in messages.
std::string Key(size_t size) {
  std::string key;
  while (key.size() < size) key += "SECRETKEYBYTES-";
  key.resize(size);
  return key;
}

// A Secret as the API server returns it.
std::string Secret(absl::string_view name, absl::string_view data_json,
                   absl::string_view owner_uid = "uid-1") {
  const std::string owners =
      owner_uid.empty()
          ? ""
          : absl::StrCat(R"(,"ownerReferences":[{"apiVersion":"tidepool.dev/v1alpha1",)",
                         R"("kind":"SlurmCluster","name":"research","uid":")", owner_uid,
                         R"(","controller":true,"blockOwnerDeletion":true}])");
  return absl::StrCat(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":")", name,
                      R"(","namespace":"hpc","resourceVersion":"7")", owners,
                      R"(},"type":"Opaque","data":)", data_json, "}");
}

std::string Data(absl::string_view data_key, absl::string_view key) {
  return absl::StrCat(R"({")", data_key, R"(":")", absl::Base64Escape(key), R"("})");
}

// The problem says which Secret and what to do, and carries no key material.
void CheckProblem(const SecretVerdict& verdict, absl::string_view secret, absl::string_view key,
                  absl::string_view says) {
  INFO(verdict.problem);
  CHECK_FALSE(verdict.usable);
  CHECK(absl::StrContains(verdict.problem, absl::StrCat("Secret \"", secret, "\"")));
  CHECK(absl::StrContains(verdict.problem, says));
  CHECK_FALSE(absl::StrContains(verdict.problem, "SECRETKEY"));
  if (!key.empty()) CHECK_FALSE(absl::StrContains(verdict.problem, absl::Base64Escape(key)));
}

TEST_CASE("a generated Secret is Opaque, immutable, labelled, owned, and holds the key") {
  const std::string key = Key(1024);
  const std::string body = GeneratedSecretBody(Cluster(), MungeKeyKind(), key);
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(body, "Secret");
  REQUIRE(doc.ok());
  CHECK(k8s::StringMember(*doc, "kind") == "Secret");
  CHECK(k8s::StringMember(*doc, "type") == "Opaque");
  CHECK(k8s::BoolMember(*doc, "immutable"));
  const rapidjson::Value* meta = k8s::FindMember(*doc, "metadata");
  REQUIRE(meta != nullptr);
  CHECK(k8s::StringMember(*meta, "name") == "research-munge-key");
  CHECK(k8s::StringMember(*meta, "namespace") == "hpc");
  CHECK(absl::StrContains(body, R"("tidepool.dev/component":"munge-key")"));
  CHECK(absl::StrContains(body, R"("tidepool.dev/cluster":"research")"));
  CHECK(absl::StrContains(
      body,
      R"("ownerReferences":[{"apiVersion":"tidepool.dev/v1alpha1","kind":"SlurmCluster","name":"research","uid":"uid-1","controller":true,"blockOwnerDeletion":true}])"));
  const rapidjson::Value* data = k8s::FindMember(*doc, "data");
  REQUIRE(data != nullptr);
  std::string decoded;
  REQUIRE(absl::Base64Unescape(k8s::StringMember(*data, "munge.key"), &decoded));
  CHECK(decoded == key);
  // What it writes it accepts.
  CHECK(CheckGeneratedSecret(Cluster(), MungeKeyKind(), body).usable);

  const std::string jwt = GeneratedSecretBody(Cluster(), JwtKeyKind(), Key(64));
  CHECK(absl::StrContains(jwt, R"("name":"research-jwt-key","namespace":"hpc")"));
  CHECK(absl::StrContains(jwt, R"("tidepool.dev/component":"jwt-key")"));
  CHECK(absl::StrContains(jwt, R"("data":{"jwt_hs256.key":")"));
  CHECK(CheckGeneratedSecret(Cluster(), JwtKeyKind(), jwt).usable);
}

TEST_CASE("generated keys have the lengths Slurm wants") {
  CHECK(MungeKeyKind().generated_bytes == 1024);
  CHECK(JwtKeyKind().generated_bytes == 64);
  CHECK(MungeKeyKind().minimum_bytes == 32);
  CHECK(JwtKeyKind().minimum_bytes == 32);
}

TEST_CASE("spec.auth picks the user's Secret; empty, the generated one") {
  v1::SlurmCluster cluster = Cluster();
  AuthSecretRef munge = AuthSecretOf(cluster, MungeKeyKind());
  CHECK(munge.name == "research-munge-key");
  CHECK(munge.generated);
  cluster.mutable_spec()->mutable_auth()->set_jwt_key_secret("site-jwt");
  AuthSecretRef jwt = AuthSecretOf(cluster, JwtKeyKind());
  CHECK(jwt.name == "site-jwt");
  CHECK_FALSE(jwt.generated);
  CHECK(AuthSecretOf(cluster, MungeKeyKind()).generated);  // each key on its own
}

TEST_CASE("an existing generated Secret is used only when it is ours and holds a key") {
  const v1::SlurmCluster cluster = Cluster();
  const std::string key = Key(1024);
  CHECK(CheckGeneratedSecret(cluster, MungeKeyKind(),
                             Secret("research-munge-key", Data("munge.key", key)))
            .usable);

  SECTION("missing data key") {
    CheckProblem(CheckGeneratedSecret(cluster, MungeKeyKind(),
                                      Secret("research-munge-key", Data("other", key))),
                 "research-munge-key", key, "has no data key \"munge.key\"");
    CheckProblem(CheckGeneratedSecret(cluster, MungeKeyKind(), Secret("research-munge-key", "{}")),
                 "research-munge-key", "", "delete it to have a new one generated");
  }
  SECTION("too short") {
    const std::string short_key = Key(31);
    const SecretVerdict verdict = CheckGeneratedSecret(
        cluster, JwtKeyKind(), Secret("research-jwt-key", Data("jwt_hs256.key", short_key)));
    CheckProblem(verdict, "research-jwt-key", short_key, "31 bytes");
    CHECK(absl::StrContains(verdict.problem, "delete it to have a new one generated"));
    CHECK(CheckGeneratedSecret(cluster, JwtKeyKind(),
                               Secret("research-jwt-key", Data("jwt_hs256.key", Key(32))))
              .usable);
  }
  SECTION("not base64") {
    CheckProblem(CheckGeneratedSecret(cluster, MungeKeyKind(),
                                      Secret("research-munge-key", R"({"munge.key":"!!"})")),
                 "research-munge-key", "", "not base64");
  }
  SECTION("left by another SlurmCluster of the same name, or made by someone else") {
    const SecretVerdict foreign = CheckGeneratedSecret(
        cluster, MungeKeyKind(), Secret("research-munge-key", Data("munge.key", key), "uid-0"));
    CheckProblem(foreign, "research-munge-key", key, "is not controlled by SlurmCluster");
    CHECK(absl::StrContains(foreign.problem, "delete it to have a new one generated"));
    CHECK(absl::StrContains(foreign.problem, "spec.auth.mungeKeySecret"));
    CheckProblem(CheckGeneratedSecret(cluster, MungeKeyKind(),
                                      Secret("research-munge-key", Data("munge.key", key), "")),
                 "research-munge-key", key, "is not controlled by SlurmCluster");
  }
}

TEST_CASE("a user's Secret is used when it holds a key, whoever owns it") {
  v1::SlurmCluster cluster = Cluster();
  cluster.mutable_spec()->mutable_auth()->set_munge_key_secret("site-munge");
  const std::string key = Key(1024);
  CHECK(CheckUserSecret(cluster, MungeKeyKind(), Secret("site-munge", Data("munge.key", key), ""))
            .usable);

  const SecretVerdict keyless =
      CheckUserSecret(cluster, MungeKeyKind(), Secret("site-munge", Data("munge", key), ""));
  CheckProblem(keyless, "site-munge", key, "spec.auth.mungeKeySecret");
  CHECK(absl::StrContains(keyless.problem, "has no data key \"munge.key\""));
  CHECK_FALSE(absl::StrContains(keyless.problem, "delete"));  // never ours to replace

  CheckProblem(
      CheckUserSecret(cluster, MungeKeyKind(), Secret("site-munge", Data("munge.key", "x"), "")),
      "site-munge", "x", "1 bytes");

  const SecretVerdict missing = MissingUserSecret(cluster, MungeKeyKind());
  CheckProblem(missing, "site-munge", "", "does not exist in namespace \"hpc\"");
  CHECK(absl::StrContains(missing.problem, "under data key \"munge.key\""));
}

}  // namespace
}  // namespace tidepool::cluster

// The JWT key of a SlurmCluster: which Secret holds it, and its decoding and checks,
// whose errors name the Secret and never carry the key's bytes.
#include "cluster_jwt_key.h"

#include <catch2/catch_test_macros.hpp>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace tidepool::syncer {
namespace {

constexpr char kSecret[] = "hpc/research-jwt-key";

std::string SecretJson(absl::string_view encoded) {
  return absl::StrCat(R"({"kind":"Secret","data":{"jwt_hs256.key":")", encoded, R"("}})");
}

TEST_CASE("the key is in <cluster>-jwt-key unless the spec names a Secret") {
  v1::SlurmCluster cluster;
  cluster.mutable_metadata()->set_name("research");
  CHECK(JwtKeySecretNameOf(cluster) == "research-jwt-key");
  cluster.mutable_spec()->mutable_auth()->set_jwt_key_secret("my-jwt");
  CHECK(JwtKeySecretNameOf(cluster) == "my-jwt");
}

TEST_CASE("a Secret's key is decoded from base64") {
  const std::string key(64, '\x07');
  absl::StatusOr<std::string> decoded =
      JwtKeyFromSecret(SecretJson(absl::Base64Escape(key)), kSecret);
  REQUIRE(decoded.ok());
  CHECK(*decoded == key);
}

TEST_CASE("an unusable Secret is named with what is wrong, never with key bytes") {
  // Printable key bytes, so a leak would show in the message.
  const std::string short_key = "KEYBYTES-KEYBYTES-KEY";
  const std::string long_not_base64 = "KEYBYTES!KEYBYTES!KEYBYTES!KEYBYTES!KEYBYTES!";
  struct Case {
    std::string json;
    std::string problem;
  };
  for (const Case& c :
       {Case{R"({"kind":"Secret","data":{"other":"eA=="}})", "has no data key \"jwt_hs256.key\""},
        Case{R"({"kind":"Secret"})", "has no data key"},
        Case{SecretJson(long_not_base64), "not base64"},
        Case{SecretJson(absl::Base64Escape(short_key)), "holds a JWT key of 21 bytes"},
        Case{"[]", "cannot be read as a Secret"}}) {
    absl::StatusOr<std::string> key = JwtKeyFromSecret(c.json, kSecret);
    INFO(c.json);
    REQUIRE_FALSE(key.ok());
    CHECK(absl::IsFailedPrecondition(key.status()));
    const std::string message(key.status().message());
    CHECK(absl::StartsWith(message, "Secret hpc/research-jwt-key "));
    CHECK(absl::StrContains(message, c.problem));
    CHECK_FALSE(absl::StrContains(message, "KEYBYTES"));
    CHECK_FALSE(absl::StrContains(message, absl::Base64Escape(short_key)));
  }
}

}  // namespace
}  // namespace tidepool::syncer

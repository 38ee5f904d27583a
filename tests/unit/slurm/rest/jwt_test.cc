// JWT minting, checked against an HMAC-SHA256 computed here from SHA-256 alone (RFC 2104),
// token refresh on a fake clock, and token files read again when they change.
#include <openssl/sha.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "slurm/rest/auth.h"
#include "slurm/rest/client.h"

namespace tidepool::slurm::rest {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1796200000);

std::string Sha256(const std::string& data) {
  unsigned char out[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), out);
  return std::string(reinterpret_cast<const char*>(out), sizeof(out));
}

// HMAC(K, m) = H((K' ^ opad) || H((K' ^ ipad) || m)), block size 64.
std::string ReferenceHmacSha256(std::string key, const std::string& message) {
  if (key.size() > 64) key = Sha256(key);
  key.resize(64, '\0');
  std::string inner(64, '\0'), outer(64, '\0');
  for (int i = 0; i < 64; ++i) {
    inner[i] = static_cast<char>(key[i] ^ 0x36);
    outer[i] = static_cast<char>(key[i] ^ 0x5c);
  }
  return Sha256(outer + Sha256(inner + message));
}

std::string Base64UrlDecode(absl::string_view in) {
  std::string s(in);
  for (char& c : s) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  while (s.size() % 4 != 0) s.push_back('=');
  std::string out;
  REQUIRE(absl::Base64Unescape(s, &out));
  return out;
}

// A credentials file as it must be: read and written by its owner alone.
void OwnerOnly(const std::string& path) {
  std::filesystem::permissions(
      path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
}

TEST_CASE("a minted JWT carries iat, exp, sun and a correct HS256 signature") {
  // A binary key, as the test environment's 32 random bytes.
  std::string key;
  for (int i = 0; i < 32; ++i) key.push_back(static_cast<char>((i * 37 + 11) & 0xff));
  const absl::Time iat = absl::FromUnixSeconds(1796200000);
  const std::string token = MintJwt(key, "root", iat, absl::Minutes(30));
  const std::vector<std::string> parts = absl::StrSplit(token, '.');
  REQUIRE(parts.size() == 3);
  CHECK(Base64UrlDecode(parts[0]) == R"({"alg":"HS256","typ":"JWT"})");
  CHECK(Base64UrlDecode(parts[1]) == R"({"exp":1796201800,"iat":1796200000,"sun":"root"})");
  CHECK(Base64UrlDecode(parts[2]) == ReferenceHmacSha256(key, parts[0] + "." + parts[1]));
  CHECK_FALSE(absl::StrContains(token, "="));
  CHECK_FALSE(absl::StrContains(token, "+"));
  CHECK_FALSE(absl::StrContains(token, "/"));
}

TEST_CASE("RFC 4231 test case 2 through the reference HMAC, and base64url") {
  CHECK(absl::BytesToHexString(ReferenceHmacSha256("Jefe", "what do ya want for nothing?")) ==
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  CHECK(Base64UrlEncode("") == "");
  CHECK(Base64UrlEncode("f") == "Zg");
  CHECK(Base64UrlEncode("fo") == "Zm8");
  CHECK(Base64UrlEncode("foo") == "Zm9v");
  CHECK(Base64UrlEncode("\xfb\xff") == "-_8");
}

TEST_CASE("the key authenticator reuses its token and mints a new one before expiry") {
  common::FakeClock clock(kStart);
  JwtKeyOptions options;
  options.user = "slurm";
  options.lifespan = absl::Minutes(30);
  options.refresh_before = absl::Minutes(10);
  options.clock = &clock;
  std::unique_ptr<Authenticator> auth = NewJwtAuthenticatorFromKey("secret", options);
  absl::StatusOr<std::vector<Header>> first = auth->Headers();
  REQUIRE(first.ok());
  REQUIRE(first->size() == 1);
  CHECK((*first)[0].first == "X-SLURM-USER-TOKEN");
  CHECK((*first)[0].second == MintJwt("secret", "slurm", clock.Now(), absl::Minutes(30)));

  clock.Advance(absl::Minutes(19));
  CHECK(auth->Headers()->at(0).second == (*first)[0].second);  // 11 min left: kept
  clock.Advance(absl::Minutes(2));
  const std::string renewed = auth->Headers()->at(0).second;  // 9 min left: renewed
  CHECK(renewed != (*first)[0].second);
  CHECK(renewed == MintJwt("secret", "slurm", clock.Now(), absl::Minutes(30)));
  CHECK_FALSE(absl::StrContains(auth->Describe(), renewed));
}

// A key that can change, as a Kubernetes Secret can; counts the rejections it is told of.
class ChangingKeySource : public JwtKeySource {
 public:
  absl::StatusOr<std::string> Key() override { return key; }
  void Rejected() override { ++rejections; }
  std::string Describe() const override { return "changing"; }

  absl::StatusOr<std::string> key = std::string("first-key");
  int rejections = 0;
};

// The defaults: tokens of 5 minutes (checked below through the tokens minted).
TEST_CASE("the key authenticator mints anew when its source's key changes") {
  common::FakeClock clock(kStart);
  auto source = std::make_shared<ChangingKeySource>();
  std::unique_ptr<Authenticator> auth =
      NewJwtAuthenticator(source, {.user = "slurm", .clock = &clock});
  const std::string first = auth->Headers()->at(0).second;
  CHECK(first == MintJwt("first-key", "slurm", clock.Now(), absl::Minutes(5)));
  CHECK(auth->Headers()->at(0).second == first);

  source->key = std::string("second-key");
  CHECK(auth->Headers()->at(0).second ==
        MintJwt("second-key", "slurm", clock.Now(), absl::Minutes(5)));
  CHECK(auth->Describe() == "jwt key changing user=slurm");
}

TEST_CASE("a rejected token is dropped and the source told") {
  common::FakeClock clock(kStart);
  auto source = std::make_shared<ChangingKeySource>();
  std::unique_ptr<Authenticator> auth =
      NewJwtAuthenticator(source, {.user = "slurm", .clock = &clock});
  REQUIRE(auth->Headers().ok());
  auth->Rejected();
  CHECK(source->rejections == 1);
  clock.Advance(absl::Seconds(1));
  CHECK(auth->Headers()->at(0).second ==
        MintJwt("first-key", "slurm", clock.Now(), absl::Minutes(5)));
}

TEST_CASE("without a key there are no headers, and the source's error says why") {
  auto source = std::make_shared<ChangingKeySource>();
  source->key = absl::FailedPreconditionError("Secret hpc/x-jwt-key not found");
  std::unique_ptr<Authenticator> auth = NewJwtAuthenticator(source, {.user = "slurm"});
  absl::StatusOr<std::vector<Header>> headers = auth->Headers();
  CHECK(absl::IsFailedPrecondition(headers.status()));
  CHECK(absl::StrContains(headers.status().message(), "hpc/x-jwt-key"));
}

TEST_CASE("the key file must exist") {
  JwtKeyOptions options;
  options.key_file = "/nonexistent/jwt.key";
  absl::StatusOr<std::unique_ptr<Authenticator>> auth = NewJwtKeyAuthenticator(options);
  REQUIRE_FALSE(auth.ok());
  CHECK(absl::IsNotFound(auth.status()));
  CHECK(absl::StrContains(auth.status().message(), "/nonexistent/jwt.key"));
}

TEST_CASE("a token file others may read is refused, naming its mode") {
  char dir_template[] = "/tmp/tidepool-rest-token-XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  const std::string path = absl::StrCat(dir_template, "/token");
  std::ofstream(path) << "a-token\n";
  std::filesystem::permissions(path, std::filesystem::perms(0644));
  const absl::Status refused = NewTokenFileAuthenticator(path)->Headers().status();
  CHECK_FALSE(refused.ok());
  CHECK(absl::StrContains(refused.message(), "has mode 0644"));
  OwnerOnly(path);
  CHECK(NewTokenFileAuthenticator(path)->Headers().ok());
  std::remove(path.c_str());
  rmdir(dir_template);
}

TEST_CASE("a token file is read again when it changes") {
  char dir_template[] = "/tmp/tidepool-rest-token-XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  const std::string path = absl::StrCat(dir_template, "/token");
  std::unique_ptr<Authenticator> auth = NewTokenFileAuthenticator(path);
  CHECK(absl::IsUnauthenticated(auth->Headers().status()));  // missing

  std::ofstream(path) << "first-token\n";
  OwnerOnly(path);
  absl::StatusOr<std::vector<Header>> h = auth->Headers();
  REQUIRE(h.ok());
  CHECK(h->at(0).second == "first-token");

  // Replaced by a new file (as a Kubernetes secret volume does) with another length.
  const std::string next = path + ".new";
  std::ofstream(next) << "  second-token-longer  ";
  OwnerOnly(next);
  REQUIRE(std::rename(next.c_str(), path.c_str()) == 0);
  h = auth->Headers();
  REQUIRE(h.ok());
  CHECK(h->at(0).second == "second-token-longer");
  CHECK_FALSE(absl::StrContains(auth->Describe(), "second-token"));

  std::ofstream(path, std::ios::trunc) << "";
  CHECK(absl::IsUnauthenticated(auth->Headers().status()));
  std::remove(path.c_str());
  rmdir(dir_template);
}

TEST_CASE("no authenticator sends no headers") {
  std::unique_ptr<Authenticator> none = NewNoAuthenticator();
  REQUIRE(none->Headers().ok());
  CHECK(none->Headers()->empty());
}

TEST_CASE("each authenticator says which Slurm user its requests act as") {
  // Minted tokens: the configured user.
  std::unique_ptr<Authenticator> minted =
      NewJwtAuthenticatorFromKey("key", {.user = "slurm", .clock = nullptr});
  CHECK(minted->SlurmUser().value_or("?") == "slurm");
  // A token: its sun claim, whatever signed it.
  const std::string token = MintJwt("other key", "alice", kStart, absl::Minutes(5));
  CHECK(JwtSlurmUser(token).value_or("?") == "alice");
  char dir_template[] = "/tmp/tidepool-rest-token-XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  const std::string path = absl::StrCat(dir_template, "/token");
  std::ofstream(path) << token << "\n";
  OwnerOnly(path);
  std::unique_ptr<Authenticator> file = NewTokenFileAuthenticator(path);
  CHECK(file->SlurmUser().value_or("?") == "alice");
  std::ofstream(path, std::ios::trunc) << "opaque-token";
  CHECK(absl::IsNotFound(file->SlurmUser().status()));
  std::remove(path.c_str());
  rmdir(dir_template);
  // rest_auth/local: this process's user.
  absl::StatusOr<std::string> local = NewNoAuthenticator()->SlurmUser();
  REQUIRE(local.ok());
  if (geteuid() == 0) CHECK(*local == "root");
}

TEST_CASE("a token that is no JWT names no user") {
  const std::string claims_without_user = Base64UrlEncode(R"({"exp":1,"iat":0})");
  for (const std::string& bad : {std::string(""), std::string("a.b"), std::string("a.!!!.c"),
                                 absl::StrCat("h.", Base64UrlEncode("[1]"), ".s"),
                                 absl::StrCat("h.", claims_without_user, ".s"),
                                 absl::StrCat("h.", Base64UrlEncode(R"({"sun":7})"), ".s")}) {
    INFO(bad);
    CHECK(absl::IsInvalidArgument(JwtSlurmUser(bad).status()));
  }
}

}  // namespace
}  // namespace tidepool::slurm::rest

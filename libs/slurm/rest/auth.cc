#include "slurm/rest/auth.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/bounded_json.h"
#include "rapidjson/document.h"
#include "slurm/rest/read_file.h"

namespace tidepool::slurm::rest {
namespace {

std::string HmacSha256(absl::string_view key, absl::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest, &length);
  return std::string(reinterpret_cast<const char*>(digest), length);
}

constexpr char kHexDigits[] = "0123456789abcdef";

std::string JsonEscape(absl::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      absl::StrAppend(&out, "\\u00", absl::string_view(&kHexDigits[(c >> 4) & 0xf], 1),
                      absl::string_view(&kHexDigits[c & 0xf], 1));
    } else {
      out.push_back(c);
    }
  }
  return out;
}

class JwtAuthenticator final : public Authenticator {
 public:
  JwtAuthenticator(std::shared_ptr<JwtKeySource> source, JwtKeyOptions options)
      : source_(std::move(source)), options_(std::move(options)) {
    if (options_.clock == nullptr) options_.clock = common::RealClock();
  }

  absl::StatusOr<std::vector<Header>> Headers() override {
    absl::StatusOr<std::string> key = source_->Key();
    if (!key.ok()) return key.status();
    const absl::Time now = options_.clock->Now();
    absl::MutexLock lock(&mutex_);
    // A changed key (a rotated Secret) makes the current token worthless.
    if (token_.empty() || *key != signed_with_ || expires_ - now < options_.refresh_before) {
      token_ = MintJwt(*key, options_.user, now, options_.lifespan);
      expires_ = now + options_.lifespan;
      signed_with_ = *std::move(key);
    }
    return std::vector<Header>{{std::string(kTokenHeader), token_}};
  }

  void Rejected() override {
    {
      absl::MutexLock lock(&mutex_);
      token_.clear();
    }
    source_->Rejected();
  }

  std::string Describe() const override {
    return absl::StrCat("jwt key ", source_->Describe(), " user=", options_.user);
  }
  absl::StatusOr<std::string> SlurmUser() override { return options_.user; }

 private:
  const std::shared_ptr<JwtKeySource> source_;
  JwtKeyOptions options_;
  absl::Mutex mutex_;
  std::string token_ ABSL_GUARDED_BY(mutex_);
  std::string signed_with_ ABSL_GUARDED_BY(mutex_);
  absl::Time expires_ ABSL_GUARDED_BY(mutex_) = absl::InfinitePast();
};

class TokenFileAuthenticator final : public Authenticator {
 public:
  explicit TokenFileAuthenticator(std::string path) : path_(std::move(path)) {}

  absl::StatusOr<std::vector<Header>> Headers() override {
    struct stat st;
    if (stat(path_.c_str(), &st) != 0) {
      const int err = errno;
      return absl::UnauthenticatedError(absl::StrCat("token file ", path_, ": ", strerror(err)));
    }
    absl::MutexLock lock(&mutex_);
    const Identity id{st.st_ino, st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec};
    if (token_.empty() || !(id == identity_)) {
      absl::StatusOr<std::string> content = ReadWholeFile(path_, "token file");
      if (!content.ok()) return absl::UnauthenticatedError(content.status().message());
      std::string token(absl::StripAsciiWhitespace(*content));
      if (token.empty())
        return absl::UnauthenticatedError(absl::StrCat("token file ", path_, " is empty"));
      token_ = std::move(token);
      identity_ = id;
    }
    return std::vector<Header>{{std::string(kTokenHeader), token_}};
  }

  std::string Describe() const override { return absl::StrCat("token file ", path_); }
  absl::StatusOr<std::string> SlurmUser() override {
    if (absl::StatusOr<std::vector<Header>> headers = Headers(); !headers.ok()) {
      return headers.status();
    }
    absl::MutexLock lock(&mutex_);
    absl::StatusOr<std::string> user = JwtSlurmUser(token_);
    if (!user.ok()) {
      return absl::NotFoundError(absl::StrCat("token file ", path_, ": ", user.status().message()));
    }
    return user;
  }

 private:
  struct Identity {
    ino_t inode = 0;
    off_t size = 0;
    time_t mtime_sec = 0;
    long mtime_nsec = 0;
    bool operator==(const Identity&) const = default;
  };
  const std::string path_;
  absl::Mutex mutex_;
  std::string token_ ABSL_GUARDED_BY(mutex_);
  Identity identity_ ABSL_GUARDED_BY(mutex_);
};

class NoAuthenticator final : public Authenticator {
 public:
  absl::StatusOr<std::vector<Header>> Headers() override { return std::vector<Header>{}; }
  std::string Describe() const override { return "none (rest_auth/local)"; }
  absl::StatusOr<std::string> SlurmUser() override {
    // rest_auth/local takes the UNIX socket peer's uid.
    const uid_t uid = geteuid();
    std::vector<char> buffer(16384);
    passwd entry{};
    passwd* found = nullptr;
    if (getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) != 0 || found == nullptr) {
      return absl::NotFoundError(absl::StrCat("uid ", uid, " has no user name"));
    }
    return std::string(found->pw_name);
  }
};

}  // namespace

std::string Base64UrlEncode(absl::string_view data) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  size_t i = 0;
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(data[k]); };
  for (; i + 2 < data.size(); i += 3) {
    const uint32_t v = (byte(i) << 16) | (byte(i + 1) << 8) | byte(i + 2);
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
    out.push_back(kAlphabet[v & 63]);
  }
  if (i + 1 == data.size()) {
    const uint32_t v = byte(i) << 16;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
  } else if (i + 2 == data.size()) {
    const uint32_t v = (byte(i) << 16) | (byte(i + 1) << 8);
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
  }
  return out;
}

absl::StatusOr<std::string> JwtSlurmUser(absl::string_view token) {
  const std::vector<absl::string_view> parts = absl::StrSplit(token, '.');
  std::string claims;
  if (parts.size() != 3 || !absl::WebSafeBase64Unescape(parts[1], &claims)) {
    return absl::InvalidArgumentError("not a JWT (header.claims.signature)");
  }
  rapidjson::Document doc;
  common::ParseBoundedJson(doc, claims);
  if (doc.HasParseError() || !doc.IsObject()) {
    return absl::InvalidArgumentError("the JWT's claims are not a JSON object");
  }
  auto sun = doc.FindMember("sun");
  if (sun == doc.MemberEnd() || !sun->value.IsString() || sun->value.GetStringLength() == 0) {
    return absl::InvalidArgumentError("the JWT names no user (claim sun)");
  }
  return std::string(sun->value.GetString(), sun->value.GetStringLength());
}

std::string MintJwt(absl::string_view key, absl::string_view user, absl::Time issued_at,
                    absl::Duration lifespan) {
  const int64_t iat = absl::ToUnixSeconds(issued_at);
  const int64_t exp = absl::ToUnixSeconds(issued_at + lifespan);
  const std::string header = Base64UrlEncode(R"({"alg":"HS256","typ":"JWT"})");
  const std::string claims = Base64UrlEncode(
      absl::StrCat(R"({"exp":)", exp, R"(,"iat":)", iat, R"(,"sun":")", JsonEscape(user), R"("})"));
  const std::string signing_input = absl::StrCat(header, ".", claims);
  return absl::StrCat(signing_input, ".", Base64UrlEncode(HmacSha256(key, signing_input)));
}

absl::StatusOr<std::unique_ptr<Authenticator>> NewJwtKeyAuthenticator(JwtKeyOptions options) {
  absl::StatusOr<std::unique_ptr<JwtKeySource>> source = NewJwtKeyFileSource(options.key_file);
  if (!source.ok()) return source.status();
  return NewJwtAuthenticator(*std::move(source), std::move(options));
}

std::unique_ptr<Authenticator> NewJwtAuthenticatorFromKey(std::string key, JwtKeyOptions options) {
  return NewJwtAuthenticator(NewFixedJwtKeySource(std::move(key)), std::move(options));
}

std::unique_ptr<Authenticator> NewJwtAuthenticator(std::shared_ptr<JwtKeySource> source,
                                                   JwtKeyOptions options) {
  return std::make_unique<JwtAuthenticator>(std::move(source), std::move(options));
}

std::unique_ptr<Authenticator> NewTokenFileAuthenticator(std::string path) {
  return std::make_unique<TokenFileAuthenticator>(std::move(path));
}

std::unique_ptr<Authenticator> NewNoAuthenticator() { return std::make_unique<NoAuthenticator>(); }

}  // namespace tidepool::slurm::rest

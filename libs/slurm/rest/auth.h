#pragma once

// Credentials for slurmrestd: a JWT minted from the cluster's HS256 key (from a
// JwtKeySource: a file, or a Kubernetes Secret), a token read from a file (re-read when
// the file changes), or none (rest_auth/local on the UNIX socket). Tokens and keys never
// appear in messages or logs.

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "slurm/rest/jwt_key_source.h"
#include "slurm/rest/transport.h"

namespace tidepool::slurm::rest {

inline constexpr absl::string_view kTokenHeader = "X-SLURM-USER-TOKEN";

class Authenticator {
 public:
  virtual ~Authenticator() = default;
  // The headers for the next request.
  virtual absl::StatusOr<std::vector<Header>> Headers() = 0;
  // slurmrestd answered the last headers with 401 / an authentication error: the next
  // Headers() should not send the same credentials if others may be had.
  virtual void Rejected() {}
  // "jwt key /run/…/jwt.key user=root", "token file …", "none" (never the token).
  virtual std::string Describe() const = 0;
  // The Slurm user the requests act as, so the owner of every job they submit: the
  // minted tokens' `sun`, the token file's `sun` claim, or this process's user for
  // rest_auth/local. NotFound when it cannot be told (a token file that is no JWT).
  virtual absl::StatusOr<std::string> SlurmUser() = 0;
};

// The `sun` claim of a JWT, read without checking its signature (the caller's own
// credential): InvalidArgument when `token` is no JWT with a string `sun`.
absl::StatusOr<std::string> JwtSlurmUser(absl::string_view token);

// An HS256 JWT: header {"alg":"HS256","typ":"JWT"}, claims {"exp","iat","sun"}, signed
// with `key` (the raw key file contents) as the HMAC secret.
std::string MintJwt(absl::string_view key, absl::string_view user, absl::Time issued_at,
                    absl::Duration lifespan);

// base64url without padding (RFC 7515), as JWTs use it.
std::string Base64UrlEncode(absl::string_view data);

struct JwtKeyOptions {
  std::string key_file;       // NewJwtKeyAuthenticator only
  std::string user = "root";  // the `sun` claim
  // Short: a token that leaks (a log, a proxy) is worth little for long.
  absl::Duration lifespan = absl::Minutes(5);
  // A new token is minted once less than this remains of the current one.
  absl::Duration refresh_before = absl::Minutes(2);
  common::Clock* clock = common::RealClock();
};

// Mints tokens from the key file (read once, now): NotFound / PermissionDenied /
// InvalidArgument (empty key) if it cannot be used.
absl::StatusOr<std::unique_ptr<Authenticator>> NewJwtKeyAuthenticator(JwtKeyOptions options);

// The key itself (tests, or a key held in memory).
std::unique_ptr<Authenticator> NewJwtAuthenticatorFromKey(std::string key, JwtKeyOptions options);

// Mints tokens from whatever key `source` holds at the time, minting anew when the key
// changes; a rejected token is dropped and the source told (options.key_file unused).
std::unique_ptr<Authenticator> NewJwtAuthenticator(std::shared_ptr<JwtKeySource> source,
                                                   JwtKeyOptions options);

// Sends the token in `path` (surrounding whitespace dropped), read again whenever the
// file's modification time, size or inode change.
std::unique_ptr<Authenticator> NewTokenFileAuthenticator(std::string path);

// No credentials (rest_auth/local over the UNIX socket).
std::unique_ptr<Authenticator> NewNoAuthenticator();

}  // namespace tidepool::slurm::rest

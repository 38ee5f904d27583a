#pragma once

// Where the HS256 key that slurmrestd tokens are signed with comes from. The
// authenticator asks for the key before each request and tells the source when
// slurmrestd refused a token, so a source that can change (a Kubernetes Secret) can
// re-read it; the minting itself does not care where the key lives.

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace tidepool::slurm::rest {

class JwtKeySource {
 public:
  virtual ~JwtKeySource() = default;
  // The key to sign with now; an error saying which object is wrong when there is none
  // usable. Neither the key nor any part of it appears in messages.
  virtual absl::StatusOr<std::string> Key() = 0;
  // slurmrestd refused a token signed with the current key: it may have been rotated.
  virtual void Rejected() {}
  // "/run/secrets/jwt.key", "Secret hpc/research-jwt-key" (never the key).
  virtual std::string Describe() const = 0;
};

// The contents of `path`, read once, now (a key file is replaced by restarting):
// NotFound / PermissionDenied / InvalidArgument (empty) if it cannot be used.
absl::StatusOr<std::unique_ptr<JwtKeySource>> NewJwtKeyFileSource(std::string path);

// A key held in memory (tests, or a key that came from elsewhere).
std::unique_ptr<JwtKeySource> NewFixedJwtKeySource(std::string key);

}  // namespace tidepool::slurm::rest

#pragma once

// The JWT key of the SlurmCluster the syncer serves, kept fresh: read from the Kubernetes
// API when first needed, again every refresh interval (a user may rotate their Secret),
// and soon after slurmrestd refuses a token (a rotated key). A failed re-read keeps the
// key held; without one, Health() says which object is wrong, for readiness.

#include <functional>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "cluster_jwt_key.h"
#include "common/clock.h"
#include "slurm/rest/jwt_key_source.h"

namespace tidepool::syncer {

struct ClusterJwtKeySourceOptions {
  std::string cluster;  // "hpc/research", for messages
  // How old a key may get before it is read again.
  absl::Duration refresh_interval = absl::Minutes(2);
  // How soon after a failed read or a refused token to read again.
  absl::Duration retry_interval = absl::Seconds(1);
  common::Clock* clock = common::RealClock();
};

class ClusterJwtKeySource final : public slurm::rest::JwtKeySource {
 public:
  using Reader = std::function<absl::StatusOr<ClusterJwtKey>()>;

  // `read` fetches the key (ReadClusterJwtKey in production); called by one caller at a
  // time, at most as often as the options allow.
  ClusterJwtKeySource(Reader read, ClusterJwtKeySourceOptions options);

  absl::StatusOr<std::string> Key() override;
  void Rejected() override;
  std::string Describe() const override;

  // OK while a key is held; else why there is none, naming the object.
  absl::Status Health() const;

 private:
  bool ReadDue(absl::Time now) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  absl::StatusOr<std::string> Current() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void Keep(ClusterJwtKey fresh) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void NoteFailure(const absl::Status& failure) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const Reader read_;
  const ClusterJwtKeySourceOptions options_;
  mutable absl::Mutex mutex_;
  std::optional<ClusterJwtKey> held_ ABSL_GUARDED_BY(mutex_);
  absl::Status last_failure_ ABSL_GUARDED_BY(mutex_);
  // A read failed or slurmrestd refused the key: read again after retry_interval.
  bool stale_ ABSL_GUARDED_BY(mutex_) = false;
  bool rejection_logged_ ABSL_GUARDED_BY(mutex_) = false;
  bool reading_ ABSL_GUARDED_BY(mutex_) = false;
  absl::Time last_read_ ABSL_GUARDED_BY(mutex_) = absl::InfinitePast();
};

}  // namespace tidepool::syncer

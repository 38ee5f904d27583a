#pragma once

// What one replica of the cluster-controller sent slurmctld: per cluster, one record of
// its last reconfigure (its hash while it has not loaded, when the call returned, why the
// load check last failed). The time outlives the load: a reconfigure
// restarts slurmctld, and the next one, for whatever config, keeps
// api::ReconfigureSpacing from it even when the first loaded at once. Without that a
// scale-out of thousands sent one every ~20 s (load check + propagation delay) to a
// slurmctld of 6,500 nodes, whose spacing is 39 s, until it died in one.
// A reconfigure that does not load is sent again after the load timeout, then after twice
// that, and so on up to kMaxResendWait: each one restarts slurmctld, and a slurmctld that
// never reads the rendered files (an external one) would otherwise restart every 30 s.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace tidepool::cluster {

class ReconfigureLedger {
 public:
  // A reconfigure for `hash` was sent that has not loaded yet.
  struct Pending {
    absl::Time returned_at;
    std::string mismatch;  // the last load check's; empty before one
    int sends = 1;         // reconfigures sent for this hash without a load between
  };

  static constexpr absl::Duration kMaxResendWait = absl::Minutes(10);

  // How long after the return of the `sends`-th reconfigure of a hash that has not loaded
  // the next one is due: `load_timeout`, doubled per send after the first, at most
  // kMaxResendWait (or `load_timeout` when that is longer).
  static absl::Duration ResendWait(absl::Duration load_timeout, int sends);

  // How long a reconfigure for `hash` must still wait: zero when the cluster's last
  // reconfigure was for `hash` too (its load is being checked; resending is Pending's
  // business) or none is on record, otherwise what is left of the spacing for `nodes`.
  absl::Duration SpacingLeft(const std::string& cluster, const std::string& hash, int64_t nodes,
                             absl::Time now) const;
  // The reconfigure for `hash` still waiting to load, if that is the cluster's last.
  std::optional<Pending> PendingFor(const std::string& cluster, const std::string& hash) const;

  // A reconfigure for `hash` returned at `returned_at` (or timed out: it may have reached
  // slurmctld and counts as sent). Another send of the pending hash counts one more send.
  void Sent(const std::string& cluster, const std::string& hash, absl::Time returned_at);
  // The cluster's pending reconfigure did not show as loaded, because of `mismatch`.
  void NotLoaded(const std::string& cluster, const std::string& mismatch);
  // slurmctld runs on the cluster's rendered config: nothing pending. The spacing from the
  // last reconfigure stays.
  void Loaded(const std::string& cluster);

 private:
  struct Entry {
    std::string hash;  // of the last reconfigure; empty once it loaded
    absl::Time returned_at;
    std::string mismatch;
    int sends = 0;
  };
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, Entry> entries_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tidepool::cluster

#pragma once

// Makes an existing claim follow its SlurmCluster field where Kubernetes allows it: a
// larger size is asked of the API server (the StorageClass's expansion does the rest);
// what cannot follow (another class, a smaller size, a claim not bound yet, a resize the
// API server refuses) is left as it is and reported (StorageMatchesSpec). Never an error:
// a claim that cannot follow must not keep its component from being applied.

#include <map>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "claim_drift.h"
#include "k8s/client.h"
#include "status.h"

namespace tidepool::cluster {

// A failed resize is asked again after this long.
inline constexpr absl::Duration kClaimResizeRetry = absl::Seconds(30);

// A refused resize is asked again after this long, the claim and size unchanged: what
// refused it (a StorageClass without allowVolumeExpansion, the role, a quota) may have
// been fixed meanwhile.
inline constexpr absl::Duration kRefusedResizeKept = absl::Minutes(10);

// Resizes the API server refused, by claim: not asked again for kRefusedResizeKept unless
// the claim (its resourceVersion) or the size asked changes, since the answer would be the
// same, and a cluster syncs on every change of its slurmd pods.
class RefusedResizes {
 public:
  // The note a refusal of growing `claim` (at `version`) to `size` left, if any.
  std::optional<StorageNote> Find(const std::string& claim, const std::string& version,
                                  const std::string& size, absl::Time now);
  void Note(const std::string& claim, const std::string& version, const std::string& size,
            StorageNote note, absl::Time now);

 private:
  struct Refusal {
    std::string version;
    std::string size;
    StorageNote note;
    absl::Time at;
  };
  absl::Mutex mutex_;
  std::map<std::string, Refusal> by_claim_ ABSL_GUARDED_BY(mutex_);
};

struct ClaimFollowed {
  std::string grown;                // "PersistentVolumeClaim x from 1Gi to 2Gi": asked now
  std::optional<StorageNote> note;  // set while the claim differs from its field
  bool retry = false;               // the call failed: ask again after kClaimResizeRetry
};

ClaimFollowed FollowClaim(k8s::Client& client, absl::string_view ns, absl::string_view claim_json,
                          const WantedClaim& wanted, RefusedResizes& refused);

}  // namespace tidepool::cluster

#pragma once

// Makes an existing claim follow its SlurmCluster field where Kubernetes allows it: a
// larger size is asked of the API server (the StorageClass's expansion does the rest);
// what cannot follow (another class, a smaller size, a resize the API server refuses) is
// left as it is and reported (StorageMatchesSpec).

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "claim_drift.h"
#include "component_step.h"
#include "k8s/client.h"

namespace tidepool::cluster {

struct ClaimFollowed {
  std::string grown;        // "PersistentVolumeClaim x from 1Gi to 2Gi" when a resize was asked
  std::string note_reason;  // set when the claim stays different from its field
  std::string note_message;
};

// An error (a failed call worth retrying) only when the API server could not be asked.
absl::StatusOr<ClaimFollowed> FollowClaim(k8s::Client& client, absl::string_view ns,
                                          absl::string_view claim_json, const WantedClaim& wanted);

// Into the plan's notes and resizes.
void AddClaimFollowed(ClaimFollowed followed, ComponentPlan& plan);

}  // namespace tidepool::cluster

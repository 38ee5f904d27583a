#pragma once

// The scheduler name a SlurmCluster's pod scheduler answers to, and whether another
// cluster takes it. Two clusters whose pod schedulers answer to one name would both submit
// a job for each such pod, in two Slurms, and race to bind it; so the cluster made later
// (on a tie, the greater namespace/name) places nothing, as if disabled, until one of the
// names changes. Pods a scheduler placed carry its cluster (tidepool.dev/slurm-cluster),
// so the other never takes them for its own.

#include <string>
#include <vector>

#include "tidepool/v1/slurm_cluster.pb.h"

namespace tidepool::podsched {

struct SchedulerChoice {
  // The name pods use for this cluster's scheduler; "" when the cluster is absent, its
  // scheduler disabled, or the name taken.
  std::string name;
  // "<namespace>/<name>" of the older cluster whose scheduler has the same name.
  std::string taken_by;

  bool operator==(const SchedulerChoice&) const = default;
};

// `own_key` is "<namespace>/<name>"; `clusters` are every SlurmCluster seen.
SchedulerChoice ChooseSchedulerName(const std::string& own_key,
                                    const std::vector<tidepool::v1::SlurmCluster>& clusters);

}  // namespace tidepool::podsched

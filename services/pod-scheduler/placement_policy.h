#pragma once

// Which Slurm accounts, QoS, reservations and partitions a pod may name in its placement
// annotations (tidepool.dev/account, qos, reservation, partition). Every placeholder job
// is submitted as slurm-syncer's Slurm user, whom Slurm lets use any of them, so without
// a policy a pod's author could charge another team's account, take a high-priority QoS
// or a reservation made for someone else. SlurmCluster spec.podScheduler.placementPolicy
// lists, per namespace, what its pods may name: an account, QoS or reservation must be
// listed by a rule for the pod's namespace; partitions are the operator's own
// (spec.partitions) and free unless a rule for the namespace lists some (then the pod must
// name one of them, not take Slurm's default).

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "tidepool/v1/slurm_cluster.pb.h"
#include "tidepool/v1/syncer.pb.h"

namespace tidepool::podsched {

class PlacementPolicy {
 public:
  PlacementPolicy() = default;  // no rules: no account, QoS or reservation allowed
  // `cluster` (the SlurmCluster's name) is for messages.
  PlacementPolicy(std::string cluster, std::vector<tidepool::v1::PlacementRule> rules)
      : cluster_(std::move(cluster)), rules_(std::move(rules)) {}

  // OK when every name `job` asks for may be used by pods of `ns`; InvalidArgument naming
  // the annotation, its value and the spec field otherwise.
  absl::Status Allows(const tidepool::v1::JobSpec& job, absl::string_view ns) const;

 private:
  std::string cluster_;
  std::vector<tidepool::v1::PlacementRule> rules_;
};

}  // namespace tidepool::podsched

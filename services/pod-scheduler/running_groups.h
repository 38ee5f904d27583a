#pragma once

// Which pod group's job a pod runs under: the job whose id it was annotated with when
// bound, filed under a group's key, with one of that job's nodes on the pod's Node. A
// member stays with the job it runs under whatever its tidepool.dev/pod-group says later,
// so removing or changing that annotation neither cancels the group's job nor deletes
// the pod. Each job's Nodes are worked out once per RunningGroups (one sync), not once per
// member.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "cluster_view.h"
#include "job_table.h"
#include "scheduled_pod.h"

namespace tidepool::podsched {

class RunningGroups {
 public:
  // Both outlive this object.
  RunningGroups(JobTable& jobs, const ClusterView& cluster) : jobs_(jobs), cluster_(cluster) {}

  // The group, in the pod's namespace, whose job the pod runs under; nullopt for a pod
  // pending, or bound under a job of its own, or under none the table has.
  std::optional<std::string> Of(const ScheduledPod& pod);

 private:
  struct JobPlacement {
    std::string ns;
    std::string group;                // "" when the job is no group's
    std::set<std::string> k8s_nodes;  // the Kubernetes Nodes of the job's Slurm nodes
  };
  const JobPlacement& PlacementOf(uint32_t job_id);

  JobTable& jobs_;
  const ClusterView& cluster_;
  std::map<uint32_t, JobPlacement> placements_;
};

}  // namespace tidepool::podsched

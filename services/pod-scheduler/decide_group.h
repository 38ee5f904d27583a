#pragma once

// The policy for one pod group (pod_group.h): from its member pods and the jobs commented
// with the group's key, what to do next. Pure, like decide.h.
//
//   fewer members than the size   → wait (nothing is submitted before all exist)
//   all N members, no job         → submit one job of N nodes (bad or disagreeing
//                                   annotations: PodScheduled=False on every member)
//   job exists                    → every member carries tidepool.dev/slurm-job-id
//   job RUNNING on N Slurm nodes  → bind each member to one of those nodes' Nodes, only
//                                   once every node has a slurmd pod of the cluster
//   job ended, requeued or purged → delete every member
//   a member deleted or finished, or the membership changed → cancel the job

#include <string>
#include <vector>

#include "action.h"
#include "cluster_view.h"
#include "scheduled_pod.h"
#include "tidepool/v1/syncer.pb.h"

namespace tidepool::podsched {

struct GroupInput {
  std::string ns;
  std::string group;
  // Every pod of ours in `ns` naming the group, deleting and finished ones too.
  std::vector<const ScheduledPod*> members;
  std::vector<tidepool::v1::SlurmJob> jobs;
  bool jobs_view_fresh = false;
};

// Actions on a member name it in Action::pod.
std::vector<Action> DecideGroup(const GroupInput& input, const ClusterView& cluster);

}  // namespace tidepool::podsched

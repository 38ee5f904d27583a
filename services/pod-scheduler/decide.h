#pragma once

// The pod-scheduler's policy for one pod key: from the pod (or its absence), the
// placeholder jobs whose comment names the key, and the cluster view, what to do next.
// Pure: no network, no clock; sync.cc carries the actions out.
//
//   pod waiting, no job          → submit its placeholder job (or, when its annotations or
//                                  requests are bad, PodScheduled=False and no job)
//   job exists                   → the pod carries tidepool.dev/slurm-job-id
//   job RUNNING on a Slurm node  → bind the pod to the Kubernetes Node of that node's
//                                  slurmd pod
//   job ended (or requeued after the pod started, or purged) → delete the pod
//   pod deleted or finished      → cancel its job; a job of an earlier pod of the same
//                                  name, or a duplicate, is cancelled too

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "action.h"
#include "cluster_view.h"
#include "scheduled_pod.h"
#include "tidepool/v1/syncer.pb.h"

namespace tidepool::podsched {

struct DecisionInput {
  const ScheduledPod* pod = nullptr;  // null: the pod is gone
  std::vector<tidepool::v1::SlurmJob> jobs;
  // The job view holds every job Slurm had when this process started (no submission
  // may be made before, or a restart could submit a pod's job twice).
  bool jobs_view_fresh = false;
  // The pod group whose job the pod records (recorded_group.h), whatever its annotations
  // say now: that group's sync decides for it.
  std::optional<std::string> recorded_group;
};

std::vector<Action> Decide(const DecisionInput& input, const ClusterView& cluster);

}  // namespace tidepool::podsched

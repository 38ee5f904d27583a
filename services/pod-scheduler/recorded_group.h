#pragma once

// The pod group whose job a pod records: the job its tidepool.dev/slurm-job-id names is
// filed under a group's key in the pod's namespace, and its tidepool.dev/slurm-cluster is
// this cluster (job ids repeat between Slurms; a pod annotated before the cluster was
// recorded goes by its annotations, as before). A pod stays with the job it records,
// pending or running, whatever its tidepool.dev/pod-group or the scheduler's name says
// later: removing or changing that annotation, or renaming the scheduler, neither cancels
// the group's job nor deletes the pod.

#include <cstdint>
#include <optional>
#include <string>

#include "job_table.h"
#include "scheduled_pod.h"

namespace tidepool::podsched {

// The key ("group/<namespace>/<group>") job `id` is filed under: nullopt for a pod's own
// job or one the table lacks.
std::optional<std::string> GroupKeyOfJob(JobTable& jobs, uint32_t id);

// nullopt for a pod that records no job, its own job, or a job the table lacks.
std::optional<std::string> RecordedGroupOf(JobTable& jobs, const ScheduledPod& pod,
                                           const std::string& cluster_key);

}  // namespace tidepool::podsched

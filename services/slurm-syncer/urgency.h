#pragma once

// Which changes jump the sync queues (k8s::WorkQueue::AddUrgent): those that start or
// end a drain. During a mass change (thousands of nodes' states after slurmctld
// restarted, a resync, jobs starting everywhere) the routine syncs queue by the thousand
// behind the client's rate limit; a cordon, or a person's drain in Slurm, must not wait
// for them.

#include <string>
#include <vector>

#include "k8s_observation.h"
#include "slurm/rest/model.h"

namespace tidepool::syncer {

// What DesiredDrainReason reads of a Node differs: unschedulable, the cordon reason, the
// status of a draining condition type.
bool NodeDrainInputsDiffer(const NodeObservation& before, const NodeObservation& after,
                           const std::vector<std::string>& drain_conditions);
// What DesiredDrainReason reads of a pod differs: terminating, ready.
bool PodDrainInputsDiffer(const PodObservation& before, const PodObservation& after);

// What of a Slurm node the Kubernetes side shows as a drain: "" when not drained, else
// the drain's reason. Two nodes' marks differ when a drain started, ended or changed.
std::string SlurmDrainMark(const slurm::rest::Node& node);

}  // namespace tidepool::syncer

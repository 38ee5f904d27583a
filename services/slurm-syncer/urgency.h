#pragma once

// Which changes jump the sync queues (k8s::WorkQueue::AddUrgent): those that start or
// end a drain, in the direction that carries it. During a mass change (thousands of
// nodes' states after slurmctld restarted, a resync, jobs starting everywhere, a mass
// cordon) the routine syncs queue by the thousand behind the client's rate limit; a
// cordon must not wait for them on its way to Slurm, nor a person's drain in Slurm on its
// way to Kubernetes. Tidepool's own drains reaching Kubernetes are routine: Kubernetes
// caused them and knows already (a mass cordon's 1,000 confirmations would otherwise
// queue a person's drain behind them).

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

// The queues a change jumps.
struct Urgency {
  bool to_slurm = false;       // a Kubernetes-side drain input changed
  bool to_kubernetes = false;  // a drain Kubernetes does not know of started or ended
};

// A drain in Slurm that Kubernetes did not cause: "" when not drained or drained by
// Tidepool (reason "k8s: …"), else the drain's reason. Two marks differ when such a
// drain started, ended or changed.
std::string OutsideDrainMark(const slurm::rest::Node& node);

}  // namespace tidepool::syncer

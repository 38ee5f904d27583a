#pragma once

// Which object updates can change what a cluster's sync produces. Every sync renders the
// whole cluster, so at thousands of nodes a sync per heartbeat or per slurm-syncer status
// write made the work per event grow with the cluster: these filters drop the updates the
// sync does not read.

#include "k8s/informer.h"

namespace tidepool::cluster {

// A Node's labels, allocatable, taints or unschedulable changed (heartbeats and
// slurm-syncer's conditions do not feed the render).
bool NodeRenderInputChanged(const k8s::CachedObject& before, const k8s::CachedObject& after);

// A pod changed beyond what slurm-syncer writes to it (its Slurm state and reason
// annotations and its conditions), which no part of the sync reads: the containers'
// readiness, phase, Node, identity, template hash or other annotations.
bool PodChangeMatters(const k8s::CachedObject& before, const k8s::CachedObject& after);

}  // namespace tidepool::cluster

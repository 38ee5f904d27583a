#pragma once

// Which object updates can change what a cluster's sync produces. Every sync renders the
// whole cluster, so at thousands of nodes a sync per heartbeat or per slurm-syncer status
// write made the work per event grow with the cluster: these filters drop the updates the
// sync does not read.

#include "k8s/informer.h"

namespace tidepool::cluster {

// A Node's name, labels or allocatable changed: what the render reads of it
// (KeepRenderInputOnly). Heartbeats, slurm-syncer's conditions, taints and cordons do not
// feed the render: a mass cordon of 10,000 Nodes rendered the cluster over and over.
bool NodeRenderInputChanged(const k8s::CachedObject& before, const k8s::CachedObject& after);

// A pod changed beyond what slurm-syncer writes to it (its Slurm state and reason
// annotations and its conditions), none of which the sync reads: its identity, Node or
// other annotations (what the render reads), or its phase, the containers' readiness or
// its template hash (which it does not, kept as a margin).
bool PodChangeMatters(const k8s::CachedObject& before, const k8s::CachedObject& after);

}  // namespace tidepool::cluster

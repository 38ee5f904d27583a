#pragma once

// Which Tidepool service may call which gRPC method of another (ARCHITECTURE.md's flows).
// A service's identity is the DNS name in its certificate, which is its own name.

#include <vector>

#include "common/grpc_authz.h"

namespace tidepool::api {

inline constexpr char kNodesetControllerIdentity[] = "nodeset-controller";
inline constexpr char kSlurmSyncerIdentity[] = "slurm-syncer";
inline constexpr char kClusterControllerIdentity[] = "cluster-controller";
inline constexpr char kConfigRendererIdentity[] = "config-renderer";
inline constexpr char kPodSchedulerIdentity[] = "pod-scheduler";

// slurm-syncer: nodes for the controllers, drains for nodeset-controller only (its own
// drains are the syncer's), jobs for the pod-scheduler only, reconfigure for
// cluster-controller only.
std::vector<common::MethodGrant> SlurmSyncerGrants();

// config-renderer: cluster-controller alone renders.
std::vector<common::MethodGrant> ConfigRendererGrants();

}  // namespace tidepool::api

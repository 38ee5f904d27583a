#pragma once

// A pod's placeholder job: one task on one node holding the pod's CPUs, memory and GPUs
// for as long as the pod runs (the pod is the real workload; the job's script only
// sleeps), placed by the pod's annotations and named by job_identity.h.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "placement.h"
#include "pod_requests.h"
#include "scheduled_pod.h"
#include "tidepool/pod_view.h"
#include "tidepool/v1/syncer.pb.h"

namespace tidepool::podsched {

inline constexpr char kPlaceholderScript[] =
    "#!/bin/sh\n"
    "# Tidepool placeholder: holds this allocation for a Kubernetes pod, which does the work.\n"
    "exec sleep 2147483647\n";

// `gpu_type` is the Slurm GPU type of the cluster's NodeSets ("" for untyped GRES).
tidepool::v1::JobSpec BuildJobSpec(const api::PodView& pod, const PodRequests& requests,
                                   const Placement& placement, const std::string& gpu_type);

// The pod's job, or InvalidArgument naming what about the pod keeps it from having one
// (a bad annotation, an unreadable resource request).
absl::StatusOr<tidepool::v1::JobSpec> JobSpecForPod(const api::PodView& pod,
                                                    const absl::StatusOr<PodRequests>& requests,
                                                    const std::string& gpu_type);

// A pod group's job: N nodes, one task each, every node holding the most any member asks
// for; the members must agree on size and placement annotations. InvalidArgument naming
// the pod and annotation otherwise. `members` are the group's live pods (not empty).
absl::StatusOr<tidepool::v1::JobSpec> JobSpecForGroup(
    const std::string& ns, const std::string& group,
    const std::vector<const ScheduledPod*>& members, const std::string& gpu_type);

}  // namespace tidepool::podsched

#pragma once

// The pod-scheduler's writes to a pod: its binding, the job-id annotation, the
// PodScheduled condition and its deletion. Each is idempotent or guarded by the pod's uid,
// so a retry or a stale cache never touches another incarnation of the pod.

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "k8s/client.h"
#include "tidepool/pod_view.h"

namespace tidepool::podsched {

inline constexpr char kFieldManager[] = "tidepool-pod-scheduler";

// POST pods/<name>/binding (the API server checks the uid and that the pod is unbound).
absl::Status BindPod(k8s::Client& client, const api::PodView& pod, const std::string& node);
// A merge patch carrying the pod's uid: the API server refuses it (422, metadata.uid is
// immutable) for another pod of the same name, which must not be given this pod's job.
// With the job id goes the cluster whose Slurm runs it (tidepool.dev/slurm-cluster).
absl::Status AnnotateJobId(k8s::Client& client, const api::PodView& pod, uint32_t job_id,
                           const std::string& cluster_key);
// PodScheduled=False with reason and message (server-side apply of pods/status, which
// merges conditions by type).
absl::Status MarkUnschedulable(k8s::Client& client, const api::PodView& pod,
                               const std::string& reason, const std::string& message,
                               absl::Time now);
// Deleted with a uid precondition; NotFound counts as done.
absl::Status DeletePod(k8s::Client& client, const api::PodView& pod);

// The JSON bodies (pure, for tests).
std::string BindingJson(const api::PodView& pod, const std::string& node);
std::string JobIdPatchJson(const api::PodView& pod, uint32_t job_id,
                           const std::string& cluster_key);
std::string UnschedulableStatusJson(const api::PodView& pod, const std::string& reason,
                                    const std::string& message, absl::Time now);

}  // namespace tidepool::podsched

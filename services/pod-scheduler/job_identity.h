#pragma once

// How a placeholder job names its pod, so that the pod-scheduler can find a pod's job
// (and a job's pod) from what Slurm alone returns, after a restart as well:
//   job name  "tidepool-pod-<pod uid>"        one job per pod incarnation
//   comment   "pod <namespace>/<name>"        the pod's key, for events and the reaper
//             "pod <namespace>/<name>: <tidepool.dev/comment>" with a user comment
// A namespace and a pod name hold no blanks, so the key ends at the first ':' or the end.
// A pod group's job (pod_group.h) is "tidepool-group-<fingerprint>" with the comment
// "group <namespace>/<group>[: <comment>]".

#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace tidepool::podsched {

inline constexpr char kJobNamePrefix[] = "tidepool-pod-";
inline constexpr char kGroupJobNamePrefix[] = "tidepool-group-";

std::string JobNameFor(absl::string_view pod_uid);
// The pod uid of a placeholder job's name; nullopt for any other job.
std::optional<std::string> PodUidOfJobName(absl::string_view job_name);

std::string JobCommentFor(absl::string_view ns, absl::string_view name,
                          absl::string_view user_comment);
// "<namespace>/<name>" from a placeholder job's comment; nullopt when it is not one.
std::optional<std::string> PodKeyOfJobComment(absl::string_view comment);

std::string GroupJobNameFor(absl::string_view fingerprint);
std::string GroupJobCommentFor(absl::string_view ns, absl::string_view group,
                               absl::string_view user_comment);

// The key a placeholder job is synced under: "<namespace>/<pod>" for a pod's job,
// "group/<namespace>/<group>" for a pod group's; nullopt for any other job.
std::optional<std::string> SyncKeyOfJob(absl::string_view job_name, absl::string_view comment);

}  // namespace tidepool::podsched

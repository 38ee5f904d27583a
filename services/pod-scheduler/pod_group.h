#pragma once

// Pod groups (gang scheduling): pods of one namespace sharing the annotation
// tidepool.dev/pod-group=<name>, each with tidepool.dev/pod-group-size=<N>, become one
// Slurm job of N nodes (one pod per node), submitted once all N pods exist and bound
// together. The group is synced under the key "group/<namespace>/<name>"; its job is named
// "tidepool-group-<fingerprint of the members' uids>" and commented
// "group <namespace>/<name>[: <tidepool.dev/comment>]", so a changed membership (a pod
// deleted and made again) is a different job.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tidepool/pod_view.h"

namespace tidepool::podsched {

inline constexpr int kMaxPodGroupSize = 1024;
inline constexpr char kGroupKeyPrefix[] = "group/";

// The pod's tidepool.dev/pod-group value, when it has one.
std::optional<std::string> PodGroupOf(const api::PodView& pod);
// A DNS label (1-63 lowercase letters, digits, '-'): InvalidArgument naming the annotation.
absl::Status ValidGroupName(absl::string_view group);
// tidepool.dev/pod-group-size: a whole number 1..kMaxPodGroupSize.
absl::StatusOr<int> PodGroupSize(const api::PodView& pod);

std::string GroupKey(absl::string_view ns, absl::string_view group);
// {namespace, group} of a group key; nullopt for a pod key.
std::optional<std::pair<std::string, std::string>> ParseGroupKey(absl::string_view key);

// A stable fingerprint of the members' uids (order does not matter): 16 hex digits.
std::string GroupFingerprint(std::vector<std::string> uids);

}  // namespace tidepool::podsched

#include "pod_group.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "annotation_error.h"
#include "k8s/dns_names.h"
#include "tidepool/contract.h"

namespace tidepool::podsched {
std::optional<std::string> PodGroupOf(const api::PodView& pod) {
  auto it = pod.annotations.find(api::kPodGroupAnnotation);
  if (it == pod.annotations.end()) return std::nullopt;
  return it->second;
}

absl::Status ValidGroupName(absl::string_view group) {
  if (k8s::IsDnsLabel(group)) return absl::OkStatus();
  return InvalidAnnotation(api::kPodGroupAnnotation, group,
                           "is not a DNS label (1-63 lowercase letters, digits and '-')");
}

absl::StatusOr<int> PodGroupSize(const api::PodView& pod) {
  auto it = pod.annotations.find(api::kPodGroupSizeAnnotation);
  if (it == pod.annotations.end()) {
    return absl::InvalidArgumentError(absl::StrCat("annotation ", api::kPodGroupSizeAnnotation,
                                                   " is missing; a pod group needs its size"));
  }
  int size = 0;
  const bool digits =
      !it->second.empty() && std::all_of(it->second.begin(), it->second.end(),
                                         [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || !absl::SimpleAtoi(it->second, &size) || size < 1 || size > kMaxPodGroupSize) {
    return InvalidAnnotation(api::kPodGroupSizeAnnotation, it->second,
                             absl::StrCat("is not a whole number from 1 to ", kMaxPodGroupSize));
  }
  return size;
}

std::string GroupKey(absl::string_view ns, absl::string_view group) {
  return absl::StrCat(kGroupKeyPrefix, ns, "/", group);
}

std::optional<std::pair<std::string, std::string>> ParseGroupKey(absl::string_view key) {
  if (!absl::ConsumePrefix(&key, kGroupKeyPrefix)) return std::nullopt;
  const size_t slash = key.find('/');
  if (slash == absl::string_view::npos || slash == 0 || slash + 1 == key.size()) {
    return std::nullopt;
  }
  return std::make_pair(std::string(key.substr(0, slash)), std::string(key.substr(slash + 1)));
}

// FNV-1a, 64 bits: stable across builds and processes (std::hash is not).
std::string GroupFingerprint(std::vector<std::string> uids) {
  std::sort(uids.begin(), uids.end());
  uint64_t hash = 14695981039346656037ULL;
  for (const std::string& uid : uids) {
    for (unsigned char c : uid + ",") {
      hash ^= c;
      hash *= 1099511628211ULL;
    }
  }
  return absl::StrFormat("%016x", hash);
}

}  // namespace tidepool::podsched

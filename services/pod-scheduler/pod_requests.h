#pragma once

// What a pod asks for, as Kubernetes counts it for scheduling (the pod's effective
// request): the larger of the app containers' sum (with restartable init containers,
// "sidecars", which run beside them) and the largest init container step, plus the pod's
// overhead. A container's requests default to its limits (the API server's defaulting
// does that for stored pods; read here too for pods from elsewhere).

#include <cstdint>

#include "absl/status/statusor.h"
#include "rapidjson/document.h"

namespace tidepool::podsched {

inline constexpr char kGpuResource[] = "nvidia.com/gpu";

// The most one Slurm node has (slurmctld counts a node's CPUs in 16 bits): a pod asking
// for more can never be placed, and is refused before its sums could overflow.
inline constexpr int64_t kMaxCpuMilli = int64_t{65535} * 1000;
inline constexpr int64_t kMaxMemoryBytes = int64_t{1} << 50;  // 1 PiB
inline constexpr int64_t kMaxGpus = 65535;

struct PodRequests {
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;
  int64_t gpus = 0;

  bool operator==(const PodRequests&) const = default;
};

// From a pod's spec object. InvalidArgument naming the container and resource when a
// quantity cannot be read, or when one or the pod's total is more than the maxima above.
absl::StatusOr<PodRequests> EffectiveRequests(const rapidjson::Value& spec);

}  // namespace tidepool::podsched

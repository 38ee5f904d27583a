#pragma once

// Where and how a pod's placeholder job runs, from the pod's tidepool.dev/* annotations
// (API.md). Absent annotations leave the choice to Slurm (default partition, the user's
// default account and QoS, the partition's time limit and share mode).

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "tidepool/v1/syncer.pb.h"

namespace tidepool::podsched {

// Bounds of tidepool.dev/time-limit (minutes): one minute to one year.
inline constexpr int64_t kMaxTimeLimitMinutes = int64_t{366} * 24 * 60;
inline constexpr size_t kMaxCommentLength = 512;

struct Placement {
  std::string partition;
  std::string account;
  std::string qos;
  int64_t time_limit_minutes = 0;  // 0: the partition's default
  tidepool::v1::JobSpec::Exclusive exclusive = tidepool::v1::JobSpec::EXCLUSIVE_UNSPECIFIED;
  std::string reservation;
  std::string comment;

  bool operator==(const Placement&) const = default;
};

// InvalidArgument naming the first bad annotation and what is wrong with its value, e.g.
// `annotation tidepool.dev/time-limit: "90m" is not a whole number of minutes`.
absl::StatusOr<Placement> ParsePlacement(const std::map<std::string, std::string>& annotations);

}  // namespace tidepool::podsched

#include "placement.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "annotation_error.h"
#include "tidepool/contract.h"

namespace tidepool::podsched {
namespace {

constexpr size_t kMaxSlurmName = 64;

const std::string* Find(const std::map<std::string, std::string>& annotations, const char* key) {
  auto it = annotations.find(key);
  return it == annotations.end() ? nullptr : &it->second;
}

// A partition, account, QoS or reservation name: what Slurm accepts in one such name
// (letters, digits, '_', '-', '.'), never a list.
absl::StatusOr<std::string> SlurmName(const std::map<std::string, std::string>& annotations,
                                      const char* key) {
  const std::string* value = Find(annotations, key);
  if (value == nullptr) return std::string();
  if (value->empty())
    return InvalidAnnotation(key, *value, "is empty; remove the annotation or name one");
  if (value->size() > kMaxSlurmName) {
    return InvalidAnnotation(key, *value,
                             absl::StrCat("is longer than ", kMaxSlurmName, " characters"));
  }
  for (char c : *value) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') {
      return InvalidAnnotation(key, *value, "may hold only letters, digits, '_', '-' and '.'");
    }
  }
  return *value;
}

absl::StatusOr<int64_t> TimeLimit(const std::map<std::string, std::string>& annotations) {
  const std::string* value = Find(annotations, api::kTimeLimitAnnotation);
  if (value == nullptr) return 0;
  int64_t minutes = 0;
  const bool digits_only = !value->empty() && std::all_of(value->begin(), value->end(), [](char c) {
    return absl::ascii_isdigit(static_cast<unsigned char>(c));
  });
  if (!digits_only || !absl::SimpleAtoi(*value, &minutes)) {
    return InvalidAnnotation(api::kTimeLimitAnnotation, *value, "is not a whole number of minutes");
  }
  if (minutes < 1 || minutes > kMaxTimeLimitMinutes) {
    return InvalidAnnotation(
        api::kTimeLimitAnnotation, *value,
        absl::StrCat("is out of range; use 1 to ", kMaxTimeLimitMinutes, " minutes"));
  }
  return minutes;
}

absl::StatusOr<tidepool::v1::JobSpec::Exclusive> Exclusive(
    const std::map<std::string, std::string>& annotations) {
  const std::string* value = Find(annotations, api::kExclusiveAnnotation);
  if (value == nullptr) return tidepool::v1::JobSpec::EXCLUSIVE_UNSPECIFIED;
  if (*value == "none") return tidepool::v1::JobSpec::EXCLUSIVE_NONE;
  if (*value == "user") return tidepool::v1::JobSpec::EXCLUSIVE_USER;
  if (*value == "ok") return tidepool::v1::JobSpec::EXCLUSIVE_OK;
  return InvalidAnnotation(
      api::kExclusiveAnnotation, *value,
      "is not none (no other job on the nodes), user (only the same user's) or ok "
      "(shared)");
}

absl::StatusOr<std::string> Comment(const std::map<std::string, std::string>& annotations) {
  const std::string* value = Find(annotations, api::kCommentAnnotation);
  if (value == nullptr) return std::string();
  if (value->size() > kMaxCommentLength) {
    return InvalidAnnotation(api::kCommentAnnotation, value->substr(0, 32) + "…",
                             absl::StrCat("is longer than ", kMaxCommentLength, " characters"));
  }
  for (char c : *value) {
    if (absl::ascii_iscntrl(static_cast<unsigned char>(c))) {
      return InvalidAnnotation(api::kCommentAnnotation, *value, "holds a control character");
    }
  }
  return *value;
}

}  // namespace

absl::StatusOr<Placement> ParsePlacement(const std::map<std::string, std::string>& annotations) {
  Placement placement;
  for (auto [key, field] : {std::pair<const char*, std::string Placement::*>{
                                api::kPartitionAnnotation, &Placement::partition},
                            {api::kAccountAnnotation, &Placement::account},
                            {api::kQosAnnotation, &Placement::qos},
                            {api::kReservationAnnotation, &Placement::reservation}}) {
    absl::StatusOr<std::string> name = SlurmName(annotations, key);
    if (!name.ok()) return name.status();
    placement.*field = *std::move(name);
  }
  absl::StatusOr<int64_t> minutes = TimeLimit(annotations);
  if (!minutes.ok()) return minutes.status();
  placement.time_limit_minutes = *minutes;
  absl::StatusOr<tidepool::v1::JobSpec::Exclusive> exclusive = Exclusive(annotations);
  if (!exclusive.ok()) return exclusive.status();
  placement.exclusive = *exclusive;
  absl::StatusOr<std::string> comment = Comment(annotations);
  if (!comment.ok()) return comment.status();
  placement.comment = *std::move(comment);
  return placement;
}

}  // namespace tidepool::podsched

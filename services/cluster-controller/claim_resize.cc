#include "claim_resize.h"

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "k8s/resource.h"

namespace tidepool::cluster {
namespace {

constexpr char kClaimUnreadableReason[] = "ClaimUnreadable";
constexpr char kClassImmutableReason[] = "ClaimClassImmutable";
constexpr char kCannotShrinkReason[] = "ClaimCannotShrink";
constexpr char kResizeRefusedReason[] = "ClaimResizeRefused";

// The API server answered, and no retry changes its answer until the claim or its class
// does (an unbound claim, a class without allowVolumeExpansion, a quota).
bool Refused(const absl::Status& status) {
  return absl::IsInvalidArgument(status) || absl::IsPermissionDenied(status) ||
         absl::IsFailedPrecondition(status);
}

// The API server's validation message goes on with a diff of the whole claim spec.
absl::string_view FirstLine(absl::string_view message) {
  return message.substr(0, message.find('\n'));
}

}  // namespace

absl::StatusOr<ClaimFollowed> FollowClaim(k8s::Client& client, absl::string_view ns,
                                          absl::string_view claim_json, const WantedClaim& wanted) {
  absl::StatusOr<ClaimDrift> drift = CompareClaim(claim_json, wanted);
  if (!drift.ok()) {
    return ClaimFollowed{.note_reason = kClaimUnreadableReason,
                         .note_message = std::string(drift.status().message())};
  }
  switch (drift->kind) {
    case ClaimDrift::Kind::kNone:
      return ClaimFollowed{};
    case ClaimDrift::Kind::kClassDiffers:
      return ClaimFollowed{.note_reason = kClassImmutableReason, .note_message = drift->message};
    case ClaimDrift::Kind::kShrink:
      return ClaimFollowed{.note_reason = kCannotShrinkReason, .note_message = drift->message};
    case ClaimDrift::Kind::kGrow:
      break;
  }
  absl::Status patched =
      client.MergePatch(k8s::PersistentVolumeClaims(), ns, wanted.name, ClaimGrowPatch(wanted.size))
          .status();
  if (Refused(patched)) {
    common::LogWarn("claim_resize_refused", {{"namespace", ns},
                                             {"claim", wanted.name},
                                             {"size", wanted.size},
                                             {"error", patched.message()}});
    return ClaimFollowed{
        .note_reason = kResizeRefusedReason,
        .note_message =
            absl::StrCat(wanted.field, ".size is ", wanted.size, " but PersistentVolumeClaim ",
                         wanted.name, " has ", drift->have_size,
                         ", and the API server refused to grow it: ", FirstLine(patched.message()),
                         " (a claim grows only once bound, and only where its StorageClass sets "
                         "allowVolumeExpansion)")};
  }
  if (!patched.ok()) return patched;
  common::LogInfo(
      "claim_resize_requested",
      {{"namespace", ns}, {"claim", wanted.name}, {"from", drift->have_size}, {"to", wanted.size}});
  return ClaimFollowed{.grown = absl::StrCat("PersistentVolumeClaim ", wanted.name, " from ",
                                             drift->have_size, " to ", wanted.size)};
}

void AddClaimFollowed(ClaimFollowed followed, ComponentPlan& plan) {
  if (!followed.grown.empty()) plan.claims_grown.push_back(std::move(followed.grown));
  if (!followed.note_reason.empty()) {
    plan.storage.push_back(
        {.reason = std::move(followed.note_reason), .message = std::move(followed.note_message)});
  }
}

}  // namespace tidepool::cluster

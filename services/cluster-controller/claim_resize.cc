#include "claim_resize.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "k8s/errors.h"
#include "k8s/resource.h"

namespace tidepool::cluster {
namespace {

constexpr char kClaimUnreadableReason[] = "ClaimUnreadable";
constexpr char kClassImmutableReason[] = "ClaimClassImmutable";
constexpr char kCannotShrinkReason[] = "ClaimCannotShrink";
constexpr char kNotBoundReason[] = "ClaimNotBound";
constexpr char kResizingReason[] = "ClaimResizing";
constexpr char kResizeRefusedReason[] = "ClaimResizeRefused";
constexpr char kResizeFailedReason[] = "ClaimResizeFailed";

// The API server answered, and asking again gets the same answer until the claim or the
// size changes (a class without allowVolumeExpansion, a role without patch, a quota).
bool Refused(const absl::Status& status) {
  return absl::IsInvalidArgument(status) || absl::IsPermissionDenied(status);
}

// The API server's validation message goes on with a diff of the whole claim spec.
absl::string_view FirstLine(absl::string_view message) {
  return message.substr(0, message.find('\n'));
}

const char* ReasonOf(ClaimDrift::Kind kind) {
  switch (kind) {
    case ClaimDrift::Kind::kClassDiffers:
      return kClassImmutableReason;
    case ClaimDrift::Kind::kShrink:
      return kCannotShrinkReason;
    case ClaimDrift::Kind::kNotBound:
      return kNotBoundReason;
    case ClaimDrift::Kind::kResizing:
      return kResizingReason;
    case ClaimDrift::Kind::kNone:
    case ClaimDrift::Kind::kGrow:
      break;
  }
  return "";
}

// `differs` says how the claim differs from its field (ClaimDrift's message).
ClaimFollowed Grow(k8s::Client& client, absl::string_view ns, const ClaimSpec& claim,
                   const WantedClaim& wanted, const std::string& differs, RefusedResizes& refused) {
  const std::string claim_key = absl::StrCat(ns, "/", wanted.name);
  const std::string& version = claim.resource_version;
  const std::string& have_size = claim.size;
  if (std::optional<StorageNote> known =
          refused.Find(claim_key, version, wanted.size, absl::Now())) {
    return {.note = std::move(known)};
  }
  absl::Status patched =
      client.MergePatch(k8s::PersistentVolumeClaims(), ns, wanted.name, ClaimGrowPatch(wanted.size))
          .status();
  if (Refused(patched)) {
    common::LogWarn("claim_resize_refused",
                    {{"claim", claim_key}, {"size", wanted.size}, {"error", patched.message()}});
    StorageNote note{
        .reason = kResizeRefusedReason,
        .message = absl::StrCat(
            differs, ", and the API server refused to grow it: ", FirstLine(patched.message()),
            " (a bound claim grows where its StorageClass sets allowVolumeExpansion, and the "
            "cluster-controller's role may patch claims)")};
    refused.Note(claim_key, version, wanted.size, note, absl::Now());
    return {.note = std::move(note)};
  }
  if (!patched.ok()) {
    common::LogWarn("claim_resize_failed",
                    {{"claim", claim_key}, {"size", wanted.size}, {"error", patched.message()}});
    return {.note = StorageNote{.reason = kResizeFailedReason,
                                .message =
                                    absl::StrCat(differs, ", and asking to grow it failed: ",
                                                 FirstLine(patched.message()), "; asked again in ",
                                                 absl::FormatDuration(kClaimResizeRetry))},
            .retry = true};
  }
  common::LogInfo("claim_resize_requested",
                  {{"claim", claim_key}, {"from", have_size}, {"to", wanted.size}});
  // Growing from now on, as the claim shows once the cache has the new request.
  return {
      .grown = absl::StrCat("PersistentVolumeClaim ", wanted.name, " from ", have_size, " to ",
                            wanted.size),
      .note = StorageNote{.reason = kResizingReason,
                          .message = absl::StrCat(differs, ": asked to grow it to ", wanted.size)}};
}

}  // namespace

std::optional<StorageNote> RefusedResizes::Find(const std::string& claim,
                                                const std::string& version, const std::string& size,
                                                absl::Time now) {
  absl::MutexLock lock(&mutex_);
  auto it = by_claim_.find(claim);
  if (it == by_claim_.end()) return std::nullopt;
  if (it->second.version != version || it->second.size != size ||
      now - it->second.at >= kRefusedResizeKept) {
    by_claim_.erase(it);
    return std::nullopt;
  }
  return it->second.note;
}

void RefusedResizes::Note(const std::string& claim, const std::string& version,
                          const std::string& size, StorageNote note, absl::Time now) {
  absl::MutexLock lock(&mutex_);
  // Refusals of claims nobody asks about any more (a cluster deleted) go here.
  std::erase_if(by_claim_,
                [&](const auto& entry) { return now - entry.second.at >= kRefusedResizeKept; });
  by_claim_[claim] = {.version = version, .size = size, .note = std::move(note), .at = now};
}

ClaimFollowed FollowClaim(k8s::Client& client, absl::string_view ns, absl::string_view claim_json,
                          const WantedClaim& wanted, RefusedResizes& refused) {
  absl::StatusOr<ClaimSpec> claim = ParseClaimSpec(claim_json);
  absl::StatusOr<ClaimDrift> drift =
      claim.ok() ? CompareClaim(*claim, wanted) : absl::StatusOr<ClaimDrift>(claim.status());
  if (!drift.ok()) {
    return {.note = StorageNote{.reason = kClaimUnreadableReason,
                                .message = std::string(drift.status().message())}};
  }
  if (drift->kind == ClaimDrift::Kind::kNone) return {};
  if (drift->kind != ClaimDrift::Kind::kGrow) {
    return {.note = StorageNote{.reason = ReasonOf(drift->kind), .message = drift->message}};
  }
  return Grow(client, ns, *claim, wanted, drift->message, refused);
}

}  // namespace tidepool::cluster

#include "job_identity.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "pod_group.h"

namespace tidepool::podsched {
namespace {

constexpr absl::string_view kCommentPrefix = "pod ";
constexpr absl::string_view kGroupCommentPrefix = "group ";

// "<a>/<b>" at the start of `text` (up to ':' or the end), both parts non-empty, no blank.
std::optional<std::string> KeyAtStart(absl::string_view text) {
  const absl::string_view key = text.substr(0, text.find(':'));
  const size_t slash = key.find('/');
  if (slash == absl::string_view::npos || slash == 0 || slash + 1 == key.size() ||
      absl::StrContains(key, ' ') || key.find('/', slash + 1) != absl::string_view::npos) {
    return std::nullopt;
  }
  return std::string(key);
}

}  // namespace

std::string JobNameFor(absl::string_view pod_uid) { return absl::StrCat(kJobNamePrefix, pod_uid); }

std::optional<std::string> PodUidOfJobName(absl::string_view job_name) {
  if (!absl::ConsumePrefix(&job_name, kJobNamePrefix) || job_name.empty()) return std::nullopt;
  return std::string(job_name);
}

std::string JobCommentFor(absl::string_view ns, absl::string_view name,
                          absl::string_view user_comment) {
  std::string comment = absl::StrCat(kCommentPrefix, ns, "/", name);
  if (!user_comment.empty()) absl::StrAppend(&comment, ": ", user_comment);
  return comment;
}

std::optional<std::string> PodKeyOfJobComment(absl::string_view comment) {
  if (!absl::ConsumePrefix(&comment, kCommentPrefix)) return std::nullopt;
  return KeyAtStart(comment);
}

std::string GroupJobNameFor(absl::string_view fingerprint) {
  return absl::StrCat(kGroupJobNamePrefix, fingerprint);
}

std::string GroupJobCommentFor(absl::string_view ns, absl::string_view group,
                               absl::string_view user_comment) {
  std::string comment = absl::StrCat(kGroupCommentPrefix, ns, "/", group);
  if (!user_comment.empty()) absl::StrAppend(&comment, ": ", user_comment);
  return comment;
}

std::optional<std::string> SyncKeyOfJob(absl::string_view job_name, absl::string_view comment) {
  if (PodUidOfJobName(job_name).has_value()) return PodKeyOfJobComment(comment);
  if (!absl::ConsumePrefix(&job_name, kGroupJobNamePrefix) || job_name.empty() ||
      !absl::ConsumePrefix(&comment, kGroupCommentPrefix)) {
    return std::nullopt;
  }
  std::optional<std::string> key = KeyAtStart(comment);
  if (!key.has_value()) return std::nullopt;
  return absl::StrCat(kGroupKeyPrefix, *key);
}

}  // namespace tidepool::podsched

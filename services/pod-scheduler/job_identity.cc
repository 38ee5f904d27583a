#include "job_identity.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace tidepool::podsched {
namespace {

constexpr absl::string_view kCommentPrefix = "pod ";

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
  const absl::string_view key = comment.substr(0, comment.find(':'));
  const size_t slash = key.find('/');
  if (slash == absl::string_view::npos || slash == 0 || slash + 1 == key.size() ||
      absl::StrContains(key, ' ') || key.find('/', slash + 1) != absl::string_view::npos) {
    return std::nullopt;
  }
  return std::string(key);
}

}  // namespace tidepool::podsched

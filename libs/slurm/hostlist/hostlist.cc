#include "slurm/hostlist/hostlist.h"

#include "absl/strings/str_cat.h"
#include "slurm/hostlist/host_expression.h"

namespace tidepool::slurm {

using hostlist_internal::AppendPaddedNumber;
using hostlist_internal::ForEachPrefix;
using hostlist_internal::HostPattern;
using hostlist_internal::NumberRange;
using hostlist_internal::ParseHostExpression;
using hostlist_internal::QuoteForError;
using hostlist_internal::TotalHostCount;

absl::StatusOr<std::vector<std::string>> ExpandHostlist(absl::string_view expression,
                                                        const ExpandOptions& options) {
  absl::StatusOr<std::vector<HostPattern>> patterns = ParseHostExpression(expression);
  if (!patterns.ok()) return patterns.status();
  absl::StatusOr<uint64_t> host_count = TotalHostCount(*patterns, expression);
  if (!host_count.ok()) return host_count.status();
  // Counted before anything is allocated, so a typo such as n[0-99999]x[0-99999] fails fast.
  if (*host_count > options.max_hosts) {
    return absl::InvalidArgumentError(
        absl::StrCat("host expression ", QuoteForError(expression), " names ", *host_count,
                     " hosts, more than the limit of ", options.max_hosts));
  }

  std::vector<std::string> names;
  names.reserve(*host_count);
  for (const HostPattern& pattern : *patterns) {
    if (pattern.brackets.empty()) {
      names.emplace_back(pattern.text);
      continue;
    }
    const std::vector<NumberRange>& last_bracket = pattern.brackets.back();
    const absl::string_view suffix = pattern.literals.back();
    ForEachPrefix(pattern, [&](const std::string& prefix) {
      for (const NumberRange& range : last_bracket) {
        for (uint64_t value = range.lo;; ++value) {
          std::string& name = names.emplace_back(prefix);
          AppendPaddedNumber(value, range.width, name);
          name.append(suffix.data(), suffix.size());
          if (value == range.hi) break;
        }
      }
    });
  }
  return names;
}

absl::StatusOr<uint64_t> CountHosts(absl::string_view expression) {
  absl::StatusOr<std::vector<HostPattern>> patterns = ParseHostExpression(expression);
  if (!patterns.ok()) return patterns.status();
  return TotalHostCount(*patterns, expression);
}

}  // namespace tidepool::slurm

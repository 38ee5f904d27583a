#pragma once

// Parsing of host expressions into patterns, shared by expansion, counting and
// HostlistBuilder::AddHostlist(). Internal to the hostlist library.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace tidepool::slurm::hostlist_internal {

// Slurm keeps host numbers in an unsigned long and treats ULONG_MAX as "overflowed"
// (strtoul's answer), so the largest number we accept is one less.
inline constexpr uint64_t kMaxHostNumber = UINT64_MAX - 1;

// lo-hi inside brackets; width is the length of lo as written, which sets the zero padding.
struct NumberRange {
  uint64_t lo = 0;
  uint64_t hi = 0;
  int width = 0;
};

// One element of a host expression: literals[0] [brackets[0]] literals[1] ... [brackets[n-1]]
// literals[n]. Without brackets it is a single host name (literals[0] == text).
struct HostPattern {
  absl::string_view text;
  std::vector<absl::string_view> literals;
  std::vector<std::vector<NumberRange>> brackets;
  uint64_t host_count = 1;
};

// Splits an expression at top-level separators and parses every element, enforcing Slurm's
// limits. The patterns point into `expression`.
absl::StatusOr<std::vector<HostPattern>> ParseHostExpression(absl::string_view expression);

// Sum of the patterns' host counts; an error if it does not fit in 64 bits.
absl::StatusOr<uint64_t> TotalHostCount(absl::Span<const HostPattern> patterns,
                                        absl::string_view expression);

// Calls `visit` with every text that precedes the last bracket of `pattern` (which must have
// brackets), in the order Slurm's _push_range_list() produces them: the second-to-last
// bracket varies slowest, then the ones before it, the first bracket fastest.
void ForEachPrefix(const HostPattern& pattern, absl::FunctionRef<void(const std::string&)> visit);

// Appends `value` with at least `width` digits, zero padded, as printf("%0*lu") does.
void AppendPaddedNumber(uint64_t value, int width, std::string& out);

// True for bytes that may not appear in a host name: separators, brackets, control chars.
bool IsForbiddenInHostName(char c);

// Quotes text for an error message, escaping unprintable bytes and shortening long text.
std::string QuoteForError(absl::string_view text);

}  // namespace tidepool::slurm::hostlist_internal

#include "slurm/hostlist/host_expression.h"

#include <charconv>
#include <optional>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "slurm/hostlist/hostlist.h"

namespace tidepool::slurm::hostlist_internal {
namespace {

// The separators Slurm's hostlist_create() splits on.
bool IsSeparator(char c) { return c == ',' || c == ' ' || c == '\t' || c == '\n'; }

bool IsControl(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte < 0x20 || byte == 0x7f;
}

bool IsAllDigits(absl::string_view text) {
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return !text.empty();
}

std::optional<uint64_t> ParseNumber(absl::string_view digits) {
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size() || value > kMaxHostNumber) {
    return std::nullopt;
  }
  return value;
}

absl::Status PatternError(absl::string_view element, absl::string_view problem) {
  return absl::InvalidArgumentError(
      absl::StrCat("host expression element ", QuoteForError(element), ": ", problem));
}

// Parses "1-3,5,07" (the text between one pair of brackets) the way Slurm's
// _parse_range_list() does, but rejects what strtoul() would let through by accident
// (signs, spaces, an empty upper bound).
absl::StatusOr<std::vector<NumberRange>> ParseBracket(absl::string_view content,
                                                      absl::string_view element) {
  if (content.empty()) return PatternError(element, "empty brackets \"[]\"");
  std::vector<NumberRange> ranges;
  size_t start = 0;
  while (true) {
    const size_t comma = content.find(',', start);
    const absl::string_view item = content.substr(
        start, comma == absl::string_view::npos ? absl::string_view::npos : comma - start);
    if (ranges.size() == kSlurmMaxRangesPerBracket) {
      return PatternError(element, absl::StrCat("more than ", kSlurmMaxRangesPerBracket,
                                                " comma-separated ranges in one bracket"));
    }
    if (item.empty()) return PatternError(element, "empty range between commas in brackets");
    const size_t dash = item.find('-');
    const absl::string_view lo_text = item.substr(0, dash);
    const absl::string_view hi_text =
        dash == absl::string_view::npos ? lo_text : item.substr(dash + 1);
    if (!IsAllDigits(lo_text) || !IsAllDigits(hi_text)) {
      return PatternError(element, absl::StrCat("range ", QuoteForError(item),
                                                " is not a number or a lo-hi pair of numbers"));
    }
    const std::optional<uint64_t> lo = ParseNumber(lo_text);
    const std::optional<uint64_t> hi = ParseNumber(hi_text);
    if (!lo.has_value() || !hi.has_value()) {
      return PatternError(element, absl::StrCat("number in range ", QuoteForError(item),
                                                " is larger than ", kMaxHostNumber));
    }
    if (*lo > *hi) {
      return PatternError(element, absl::StrCat("range ", QuoteForError(item),
                                                " is reversed; write ", hi_text, "-", lo_text));
    }
    if (*hi - *lo >= kSlurmMaxHostsPerRange) {
      return PatternError(element, absl::StrCat("range ", QuoteForError(item), " names ",
                                                *hi - *lo + 1, " hosts; Slurm accepts at most ",
                                                kSlurmMaxHostsPerRange, " in one range"));
    }
    ranges.push_back(NumberRange{.lo = *lo, .hi = *hi, .width = static_cast<int>(lo_text.size())});
    if (comma == absl::string_view::npos) break;
    start = comma + 1;
  }
  return ranges;
}

uint64_t ValuesInBracket(const std::vector<NumberRange>& ranges) {
  uint64_t values = 0;
  for (const NumberRange& range : ranges) values += range.hi - range.lo + 1;
  return values;
}

// Parses one element whose brackets are known to be balanced and not nested.
absl::StatusOr<HostPattern> ParseElement(absl::string_view element) {
  HostPattern pattern;
  pattern.text = element;
  size_t literal_start = 0;
  for (size_t open = element.find('['); open != absl::string_view::npos;
       open = element.find('[', literal_start)) {
    const size_t close = element.find(']', open);
    pattern.literals.push_back(element.substr(literal_start, open - literal_start));
    absl::StatusOr<std::vector<NumberRange>> ranges =
        ParseBracket(element.substr(open + 1, close - open - 1), element);
    if (!ranges.ok()) return ranges.status();
    pattern.brackets.push_back(*std::move(ranges));
    literal_start = close + 1;
  }
  pattern.literals.push_back(element.substr(literal_start));

  for (size_t i = 0; i < pattern.brackets.size(); ++i) {
    const uint64_t values = ValuesInBracket(pattern.brackets[i]);
    const bool is_last = i + 1 == pattern.brackets.size();
    // Slurm expands every bracket but the last into separate prefixes and caps their number
    // (MAX_PREFIX_CNT in _push_range_list()).
    if (!is_last && values > kSlurmMaxPrefixValues) {
      return PatternError(
          element,
          absl::StrCat("bracket ", i + 1, " names ", values, " values; Slurm accepts at most ",
                       kSlurmMaxPrefixValues, " in a bracket that is not the last one"));
    }
    if (__builtin_mul_overflow(pattern.host_count, values, &pattern.host_count)) {
      return PatternError(element, "names more than 2^64 hosts");
    }
  }
  return pattern;
}

}  // namespace

absl::StatusOr<std::vector<HostPattern>> ParseHostExpression(absl::string_view expression) {
  std::vector<HostPattern> patterns;
  size_t position = 0;
  while (true) {
    while (position < expression.size() && IsSeparator(expression[position])) ++position;
    if (position == expression.size()) break;
    const size_t start = position;
    bool in_bracket = false;
    for (; position < expression.size(); ++position) {
      const char c = expression[position];
      const absl::string_view so_far = expression.substr(start, position + 1 - start);
      if (c == '[') {
        if (in_bracket) return PatternError(so_far, "'[' inside brackets");
        in_bracket = true;
      } else if (c == ']') {
        if (!in_bracket) return PatternError(so_far, "']' without a matching '['");
        in_bracket = false;
      } else if (IsSeparator(c)) {
        if (!in_bracket) break;
        if (c != ',') return PatternError(so_far, "whitespace inside brackets");
      } else if (IsControl(c)) {
        return PatternError(so_far, "control character");
      }
    }
    const absl::string_view element = expression.substr(start, position - start);
    if (in_bracket) return PatternError(element, "'[' is never closed");
    absl::StatusOr<HostPattern> pattern = ParseElement(element);
    if (!pattern.ok()) return pattern.status();
    patterns.push_back(*std::move(pattern));
  }
  if (patterns.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("host expression ", QuoteForError(expression), " names no hosts"));
  }
  return patterns;
}

absl::StatusOr<uint64_t> TotalHostCount(absl::Span<const HostPattern> patterns,
                                        absl::string_view expression) {
  uint64_t total = 0;
  for (const HostPattern& pattern : patterns) {
    if (__builtin_add_overflow(total, pattern.host_count, &total)) {
      return absl::InvalidArgumentError(absl::StrCat("host expression ", QuoteForError(expression),
                                                     " names more than 2^64 hosts"));
    }
  }
  return total;
}

void ForEachPrefix(const HostPattern& pattern, absl::FunctionRef<void(const std::string&)> visit) {
  // Brackets before the last one, rendered once each; there are at most
  // kSlurmMaxPrefixValues values per bracket.
  const size_t prefix_brackets = pattern.brackets.size() - 1;
  std::vector<std::vector<std::string>> rendered(prefix_brackets);
  for (size_t i = 0; i < prefix_brackets; ++i) {
    for (const NumberRange& range : pattern.brackets[i]) {
      for (uint64_t value = range.lo;; ++value) {
        std::string text;
        AppendPaddedNumber(value, range.width, text);
        rendered[i].push_back(std::move(text));
        if (value == range.hi) break;
      }
    }
  }
  // An odometer whose first digit (bracket 0) turns fastest and whose last digit turns
  // slowest, matching the recursion in Slurm's _push_range_list().
  std::vector<size_t> position(prefix_brackets, 0);
  std::string prefix;
  while (true) {
    prefix.clear();
    for (size_t i = 0; i < prefix_brackets; ++i) {
      prefix.append(pattern.literals[i].data(), pattern.literals[i].size());
      prefix.append(rendered[i][position[i]]);
    }
    prefix.append(pattern.literals[prefix_brackets].data(),
                  pattern.literals[prefix_brackets].size());
    visit(prefix);
    size_t digit = 0;
    while (digit < prefix_brackets && ++position[digit] == rendered[digit].size()) {
      position[digit] = 0;
      ++digit;
    }
    if (digit == prefix_brackets) return;
  }
}

void AppendPaddedNumber(uint64_t value, int width, std::string& out) {
  char digits[24];
  const auto [end, error] = std::to_chars(digits, digits + sizeof(digits), value);
  const int length = static_cast<int>(end - digits);
  if (width > length) out.append(static_cast<size_t>(width - length), '0');
  out.append(digits, end);
}

bool IsForbiddenInHostName(char c) {
  return IsSeparator(c) || c == '[' || c == ']' || IsControl(c);
}

std::string QuoteForError(absl::string_view text) {
  constexpr size_t kMaxShown = 80;
  if (text.size() <= kMaxShown) return absl::StrCat("\"", absl::CHexEscape(text), "\"");
  return absl::StrCat("\"", absl::CHexEscape(text.substr(0, kMaxShown)), "...\" (", text.size(),
                      " characters)");
}

}  // namespace tidepool::slurm::hostlist_internal

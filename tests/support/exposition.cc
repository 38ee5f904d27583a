#include "support/exposition.h"

#include <regex>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace tidepool::testing {

absl::Status ValidateExposition(absl::string_view text) {
  static const std::regex kComment(
      R"(# (HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*|TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (counter|gauge|histogram|summary|untyped)))");
  static const std::regex kSample(
      R"([a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? (-?[0-9.eE+-]+|NaN|\+Inf|-Inf)( -?[0-9]+)?)");
  if (text.empty()) return absl::InvalidArgumentError("exposition is empty");
  if (text.back() != '\n')
    return absl::InvalidArgumentError("exposition does not end in a newline");
  int line_number = 0;
  int samples = 0;
  for (absl::string_view line : absl::StrSplit(text.substr(0, text.size() - 1), '\n')) {
    ++line_number;
    const std::string copy(line);
    const bool is_comment = !copy.empty() && copy[0] == '#';
    if (is_comment ? !std::regex_match(copy, kComment) : !std::regex_match(copy, kSample)) {
      return absl::InvalidArgumentError(absl::StrCat("line ", line_number, ": ", copy));
    }
    if (!is_comment) ++samples;
  }
  if (samples == 0) return absl::InvalidArgumentError("exposition has no samples");
  return absl::OkStatus();
}

std::string SampleValue(absl::string_view text, absl::string_view name, absl::string_view labels) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::ConsumePrefix(&line, name)) continue;
    if (labels.empty()) {
      if (absl::ConsumePrefix(&line, " ")) return std::string(line);
      continue;
    }
    const size_t close = line.find("} ");
    if (!absl::StartsWith(line, "{") || close == absl::string_view::npos) continue;
    if (absl::StrContains(line.substr(0, close), labels))
      return std::string(line.substr(close + 2));
  }
  return "";
}

}  // namespace tidepool::testing

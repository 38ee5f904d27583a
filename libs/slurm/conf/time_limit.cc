#include "slurm/conf/time_limit.h"

#include <optional>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace tidepool::slurm {
namespace {

// Slurm's INFINITE is 0xffffffff minutes and NO_VAL one less: finite limits stay below.
constexpr int64_t kLargestMinutes = 0xfffffffdLL;
constexpr size_t kMostDigits = 10;

std::optional<int64_t> Number(absl::string_view digits) {
  if (digits.empty() || digits.size() > kMostDigits) return std::nullopt;
  int64_t value = 0;
  for (char c : digits) {
    if (!absl::ascii_isdigit(c)) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

absl::Status Invalid(absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(
      "\"", text, "\" is not a Slurm time limit (", why,
      "; INFINITE, minutes, minutes:seconds, hours:minutes:seconds or days-hours[:minutes"
      "[:seconds]])"));
}

}  // namespace

absl::StatusOr<int64_t> ParseTimeLimit(absl::string_view text) {
  if (text == "INFINITE" || text == "UNLIMITED") return -1;
  std::optional<int64_t> days;
  absl::string_view clock = text;
  if (const size_t dash = text.find('-'); dash != absl::string_view::npos) {
    days = Number(text.substr(0, dash));
    if (!days.has_value()) return Invalid(text, "days are not a number");
    clock = text.substr(dash + 1);
  }
  const std::vector<absl::string_view> parts = absl::StrSplit(clock, ':');
  if (parts.size() > 3) return Invalid(text, "too many ':'");
  std::vector<int64_t> values;
  for (absl::string_view part : parts) {
    std::optional<int64_t> value = Number(part);
    if (!value.has_value()) return Invalid(text, "a field is not a number");
    values.push_back(*value);
  }
  int64_t seconds = 0;
  if (days.has_value()) {
    // days-hours[:minutes[:seconds]]
    const int64_t limits[] = {24, 60, 60};
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i] >= limits[i]) return Invalid(text, "hours, minutes or seconds out of range");
    }
    seconds = ((*days * 24 + values[0]) * 60 + (values.size() > 1 ? values[1] : 0)) * 60 +
              (values.size() > 2 ? values[2] : 0);
  } else if (values.size() == 1) {
    seconds = values[0] * 60;  // minutes
  } else if (values.size() == 2) {
    if (values[1] >= 60) return Invalid(text, "seconds out of range");
    seconds = values[0] * 60 + values[1];  // minutes:seconds
  } else {
    if (values[1] >= 60 || values[2] >= 60) return Invalid(text, "minutes or seconds out of range");
    seconds = (values[0] * 60 + values[1]) * 60 + values[2];  // hours:minutes:seconds
  }
  const int64_t minutes = (seconds + 59) / 60;
  if (minutes > kLargestMinutes) return Invalid(text, "longer than Slurm can hold");
  return minutes;
}

}  // namespace tidepool::slurm

#include "k8s/quantity.h"

#include <array>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace tidepool::k8s {
namespace {

using int128 = __int128;

struct Suffix {
  absl::string_view text;
  int base;      // 2 or 10
  int exponent;  // power of the base
};

constexpr std::array<Suffix, 14> kSuffixes = {{
    {"Ki", 2, 10},
    {"Mi", 2, 20},
    {"Gi", 2, 30},
    {"Ti", 2, 40},
    {"Pi", 2, 50},
    {"Ei", 2, 60},
    {"n", 10, -9},
    {"u", 10, -6},
    {"m", 10, -3},
    {"k", 10, 3},
    {"M", 10, 6},
    {"G", 10, 9},
    {"T", 10, 12},
    {"P", 10, 15},
}};
constexpr Suffix kExa = {"E", 10, 18};
constexpr int128 kLimit = static_cast<int128>(INT64_MAX);

absl::Status Invalid(absl::string_view quantity, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("quantity \"", quantity, "\" is not valid: ", why));
}

// Splits "1.5Gi" into number "1.5" and suffix "Gi"; "1e3" into "1" and exponent 3.
absl::StatusOr<std::pair<absl::string_view, Suffix>> SplitSuffix(absl::string_view quantity) {
  size_t end = 0;
  while (end < quantity.size() && (absl::ascii_isdigit(quantity[end]) || quantity[end] == '.' ||
                                   (end == 0 && (quantity[end] == '+' || quantity[end] == '-')))) {
    ++end;
  }
  const absl::string_view number = quantity.substr(0, end);
  const absl::string_view suffix = quantity.substr(end);
  if (suffix.empty()) return std::make_pair(number, Suffix{"", 10, 0});
  if (suffix == "E") return std::make_pair(number, kExa);
  for (const Suffix& candidate : kSuffixes) {
    if (candidate.text == suffix) return std::make_pair(number, candidate);
  }
  if (suffix[0] == 'e' || suffix[0] == 'E') {
    int exponent = 0;
    if (absl::SimpleAtoi(suffix.substr(1), &exponent) && exponent >= -30 && exponent <= 30) {
      return std::make_pair(number, Suffix{suffix, 10, exponent});
    }
  }
  return Invalid(quantity, absl::StrCat("unknown suffix \"", suffix, "\""));
}

// Products stay below 2^125: a step that would pass it makes the quantity out of range
// (legitimate quantities are int64; 30 digits times 10^30 would wrap an int128).
constexpr int128 kProductCap = static_cast<int128>(1) << 125;

bool MultiplyChecked(int128& value, int128 factor) {
  if (factor != 0 && value > kProductCap / factor) return false;
  value *= factor;
  return true;
}

bool MultiplyByPower(int128& value, int base, int exponent) {
  for (int i = 0; i < exponent; ++i) {
    if (!MultiplyChecked(value, base)) return false;
  }
  return true;
}

// value = mantissa * 10^-fraction_digits * base^exponent * scale, rounded up.
absl::StatusOr<int64_t> Scaled(absl::string_view quantity, int64_t scale) {
  auto split = SplitSuffix(quantity);
  if (!split.ok()) return split.status();
  auto [number, suffix] = *split;
  const bool negative = !number.empty() && number[0] == '-';
  if (!number.empty() && (number[0] == '-' || number[0] == '+')) number.remove_prefix(1);
  const size_t dot = number.find('.');
  const absl::string_view whole = number.substr(0, dot);
  const absl::string_view fraction =
      dot == absl::string_view::npos ? absl::string_view() : number.substr(dot + 1);
  if ((whole.empty() && fraction.empty()) || fraction.find('.') != absl::string_view::npos ||
      whole.size() + fraction.size() > 30) {
    return Invalid(quantity, "expected a number such as 64, 0.5 or 512Gi");
  }
  for (char c : absl::StrCat(whole, fraction)) {
    if (!absl::ascii_isdigit(c)) return Invalid(quantity, "expected a number such as 64 or 0.5");
  }
  int128 numerator = 0;
  for (char c : absl::StrCat(whole, fraction)) numerator = numerator * 10 + (c - '0');
  int128 denominator = 1;
  bool in_range = MultiplyByPower(denominator, 10, static_cast<int>(fraction.size())) &&
                  MultiplyChecked(numerator, scale);
  if (in_range && suffix.exponent >= 0) {
    in_range = MultiplyByPower(numerator, suffix.base, suffix.exponent);
  } else if (in_range) {
    in_range = MultiplyByPower(denominator, suffix.base, -suffix.exponent);
  }
  if (!in_range) return Invalid(quantity, "out of range");
  int128 value = (numerator + denominator - 1) / denominator;
  if (value > kLimit) return Invalid(quantity, "too large");
  return static_cast<int64_t>(negative ? -value : value);
}

}  // namespace

absl::StatusOr<int64_t> QuantityMilliValue(absl::string_view quantity) {
  return Scaled(absl::StripAsciiWhitespace(quantity), 1000);
}

absl::StatusOr<int64_t> QuantityValue(absl::string_view quantity) {
  return Scaled(absl::StripAsciiWhitespace(quantity), 1);
}

}  // namespace tidepool::k8s

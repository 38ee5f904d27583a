#include "slurm/hostlist/natural_compare.h"

#include <cstddef>

namespace tidepool::slurm {
namespace {

// Past the end a string reads as NUL, as the C strings strnatcmp() walks do.
signed char CharAt(absl::string_view text, size_t index) {
  return index < text.size() ? static_cast<signed char>(text[index]) : 0;
}

bool IsDigit(signed char c) { return c >= '0' && c <= '9'; }

// isspace() in the C locale.
bool IsSpace(signed char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// Two digit runs without leading zeros: the longer run is the larger number; with equal
// lengths the first differing digit decides.
int CompareAsIntegers(absl::string_view a, size_t i, absl::string_view b, size_t j) {
  int first_difference = 0;
  for (;; ++i, ++j) {
    const signed char ca = CharAt(a, i);
    const signed char cb = CharAt(b, j);
    if (!IsDigit(ca) && !IsDigit(cb)) return first_difference;
    if (!IsDigit(ca)) return -1;
    if (!IsDigit(cb)) return +1;
    if (first_difference == 0 && ca != cb) first_difference = ca < cb ? -1 : +1;
  }
}

// Digit runs where one starts with '0': compared like decimal fractions, digit by digit,
// the shorter run first when one is a prefix of the other.
int CompareAsFractions(absl::string_view a, size_t i, absl::string_view b, size_t j) {
  for (;; ++i, ++j) {
    const signed char ca = CharAt(a, i);
    const signed char cb = CharAt(b, j);
    if (!IsDigit(ca) && !IsDigit(cb)) return 0;
    if (!IsDigit(ca)) return -1;
    if (!IsDigit(cb)) return +1;
    if (ca != cb) return ca < cb ? -1 : +1;
  }
}

}  // namespace

int NaturalCompare(absl::string_view a, absl::string_view b) {
  size_t i = 0;
  size_t j = 0;
  while (true) {
    signed char ca = CharAt(a, i);
    signed char cb = CharAt(b, j);
    while (IsSpace(ca)) ca = CharAt(a, ++i);
    while (IsSpace(cb)) cb = CharAt(b, ++j);
    if (IsDigit(ca) && IsDigit(cb)) {
      const int by_number =
          (ca == '0' || cb == '0') ? CompareAsFractions(a, i, b, j) : CompareAsIntegers(a, i, b, j);
      if (by_number != 0) return by_number;
    }
    if (ca == 0 && cb == 0) return 0;
    if (ca != cb) return ca < cb ? -1 : +1;
    ++i;
    ++j;
  }
}

}  // namespace tidepool::slurm

#pragma once

// Deterministic pseudo-random host names and host expressions, for property tests here and
// for comparing against the real `scontrol show hostnames|hostlist|hostlistsorted` in
// integration tests. The same (count, seed) gives the same cases on every platform: the
// generator is SplitMix64 and no std:: distribution (whose output is implementation
// defined) is used.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tidepool::slurm::testing {

class CaseRandom {
 public:
  explicit CaseRandom(uint64_t seed) : state_(seed) {}

  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  // Uniform enough in [0, bound) for test data; bound must be > 0.
  uint64_t Below(uint64_t bound) { return Next() % bound; }

  bool Percent(uint64_t percent) { return Below(100) < percent; }

  template <typename T>
  const T& Pick(const std::vector<T>& items) {
    return items[Below(items.size())];
  }

 private:
  uint64_t state_;
};

// Prefixes chosen to exercise natural ordering (digits inside, leading zeros), an empty
// prefix, and prefixes that are also complete host names.
inline const std::vector<std::string>& CasePrefixes() {
  static const std::vector<std::string> kPrefixes = {
      "n", "node", "gpu-", "gpu2-node", "rack1-n", "rack10-n", "rack2-n", "a01-", "a1-", "", "x"};
  return kPrefixes;
}

// `value` written with `width` digits, zero padded.
inline std::string PaddedCaseNumber(uint64_t value, size_t width) {
  std::string digits = absl::StrCat(value);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

// `count` host names: mostly prefix+number, with and without zero padding, some numbers
// near digit boundaries (9/10, 99/100), some names without a number, some repeated.
inline std::vector<std::string> GenerateHostNames(size_t count, uint64_t seed,
                                                  bool allow_padding = true,
                                                  bool allow_duplicates = true) {
  CaseRandom random(seed);
  std::vector<std::string> names;
  names.reserve(count);
  while (names.size() < count) {
    if (allow_duplicates && !names.empty() && random.Percent(5)) {
      names.push_back(names[random.Below(names.size())]);
      continue;
    }
    const std::string& prefix = random.Pick(CasePrefixes());
    if (random.Percent(4)) {
      const std::vector<std::string> kWords = {"login", "head", "n", "gpu-", "node-ib"};
      names.push_back(random.Pick(kWords));
      continue;
    }
    const uint64_t base = random.Pick(std::vector<uint64_t>{0, 8, 95, 995, 40});
    const uint64_t value = base + random.Below(12);
    size_t width = 0;
    if (allow_padding && random.Percent(30)) width = PaddedCaseNumber(value, 0).size() + 1;
    if (allow_padding && random.Percent(10)) width = 3;
    names.push_back(prefix + PaddedCaseNumber(value, width));
  }
  if (!allow_duplicates) {
    // Drop repeats while keeping the first occurrence's position.
    std::vector<std::string> unique;
    for (const std::string& name : names) {
      bool seen = false;
      for (const std::string& kept : unique) seen = seen || kept == name;
      if (!seen) unique.push_back(name);
    }
    names = std::move(unique);
  }
  return names;
}

// One bracket such as "[01-03,7,10-12]" with `ranges` ranges.
inline std::string GenerateBracket(CaseRandom& random, size_t ranges) {
  std::vector<std::string> items;
  for (size_t i = 0; i < ranges; ++i) {
    const uint64_t lo =
        random.Pick(std::vector<uint64_t>{0, 1, 7, 9, 10, 98, 99}) + random.Below(4);
    const uint64_t hi = lo + random.Below(random.Percent(20) ? 30 : 4);
    const size_t width = random.Percent(35) ? PaddedCaseNumber(lo, 0).size() + 1 : 0;
    items.push_back(lo == hi && random.Percent(50)
                        ? PaddedCaseNumber(lo, width)
                        : absl::StrCat(PaddedCaseNumber(lo, width), "-", hi));
  }
  return absl::StrCat("[", absl::StrJoin(items, ","), "]");
}

// `count` valid host expressions: comma-separated lists of plain names and bracketed
// patterns with one to three brackets, padding, suffixes after the bracket and repeats.
// Each expression names at most a few thousand hosts.
inline std::vector<std::string> GenerateHostExpressions(size_t count, uint64_t seed) {
  CaseRandom random(seed);
  std::vector<std::string> expressions;
  expressions.reserve(count);
  const std::vector<std::string> kSuffixes = {"", "", "", "", "-ib", "b", "-0"};
  for (size_t i = 0; i < count; ++i) {
    std::vector<std::string> elements;
    const size_t element_count = 1 + random.Below(4);
    for (size_t e = 0; e < element_count; ++e) {
      if (!elements.empty() && random.Percent(10)) {
        elements.push_back(elements[random.Below(elements.size())]);
        continue;
      }
      std::string element = random.Pick(CasePrefixes());
      const uint64_t bracket_roll = random.Below(100);
      const size_t brackets = bracket_roll < 15   ? 0
                              : bracket_roll < 80 ? 1
                              : bracket_roll < 95 ? 2
                                                  : 3;
      if (brackets == 0) {
        element += PaddedCaseNumber(random.Below(120), random.Percent(30) ? 3 : 0);
      }
      for (size_t b = 0; b < brackets; ++b) {
        if (b > 0) element += random.Pick(std::vector<std::string>{"-", "x", "", "-n"});
        element += GenerateBracket(random, 1 + random.Below(b + 1 == brackets ? 3 : 2));
      }
      if (brackets > 0) element += random.Pick(kSuffixes);
      if (element.empty()) element = "empty";
      elements.push_back(std::move(element));
    }
    expressions.push_back(absl::StrJoin(elements, ","));
  }
  return expressions;
}

}  // namespace tidepool::slurm::testing

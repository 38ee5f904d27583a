// Round-trip properties over seeded pseudo-random names and expressions (hostlist_cases.h).

#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hostlist_cases.h"
#include "slurm/hostlist/hostlist.h"
#include "slurm/hostlist/natural_compare.h"

namespace tidepool::slurm {
namespace {

using Names = std::vector<std::string>;

Names ExpandOrFail(absl::string_view expression) {
  absl::StatusOr<Names> names = ExpandHostlist(expression);
  INFO("expression: " << std::string(expression));
  REQUIRE(names.ok());
  return *names;
}

std::string CompressOrFail(const Names& names, HostlistOrder order) {
  absl::StatusOr<std::string> compressed = CompressHostNames(names, {.order = order});
  REQUIRE(compressed.ok());
  return *compressed;
}

Names Sorted(Names names) {
  std::sort(names.begin(), names.end());
  return names;
}

Names SortedUnique(Names names) {
  names = Sorted(std::move(names));
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

constexpr int kRounds = 300;

TEST_CASE("kAsGiven compression expands back to exactly the names given") {
  for (int round = 0; round < kRounds; ++round) {
    const Names names = testing::GenerateHostNames(1 + round % 60, 1000 + round);
    const std::string compressed = CompressOrFail(names, HostlistOrder::kAsGiven);
    INFO("round " << round << ": " << compressed);
    CHECK(ExpandOrFail(compressed) == names);
    CHECK(CountHosts(compressed).value() == names.size());
  }
}

TEST_CASE("kSorted compression keeps every name, duplicates too, and is stable") {
  for (int round = 0; round < kRounds; ++round) {
    const Names names = testing::GenerateHostNames(1 + round % 60, 2000 + round);
    const std::string compressed = CompressOrFail(names, HostlistOrder::kSorted);
    INFO("round " << round << ": " << compressed);
    const Names expanded = ExpandOrFail(compressed);
    CHECK(Sorted(expanded) == Sorted(names));
    // Compressing the sorted expansion again changes nothing.
    CHECK(CompressOrFail(expanded, HostlistOrder::kSorted) == compressed);
  }
}

TEST_CASE("kSortedUnique compression keeps every host and drops neighbouring repeats") {
  for (int round = 0; round < kRounds; ++round) {
    const Names names = testing::GenerateHostNames(1 + round % 60, 3000 + round);
    const std::string compressed = CompressOrFail(names, HostlistOrder::kSortedUnique);
    INFO("round " << round << ": " << compressed);
    const Names expanded = ExpandOrFail(compressed);
    // Mixed zero padding can leave a repeat that sorting did not make a neighbour.
    CHECK(SortedUnique(expanded) == SortedUnique(names));
    CHECK(expanded.size() <= names.size());
  }
}

TEST_CASE("kSortedUnique names each host once when padding is not mixed") {
  for (int round = 0; round < kRounds; ++round) {
    const Names names = testing::GenerateHostNames(1 + round % 60, 3500 + round,
                                                   /*allow_padding=*/false);
    const std::string compressed = CompressOrFail(names, HostlistOrder::kSortedUnique);
    INFO("round " << round << ": " << compressed);
    const Names expanded = ExpandOrFail(compressed);
    CHECK(Sorted(expanded) == SortedUnique(names));
    // Without duplicates the two sorted forms agree.
    CHECK(CompressOrFail(expanded, HostlistOrder::kSorted) == compressed);
  }
}

// An independent statement of hostlist_sort()'s order for names without zero padding:
// prefix in natural order, the bare name before numbered ones, then by number.
TEST_CASE("kSorted orders unpadded names by natural prefix, then number") {
  for (int round = 0; round < kRounds; ++round) {
    Names names = testing::GenerateHostNames(1 + round % 80, 4000 + round,
                                             /*allow_padding=*/false,
                                             /*allow_duplicates=*/false);
    const std::string compressed = CompressOrFail(names, HostlistOrder::kSorted);
    INFO("round " << round << ": " << compressed);
    const auto key = [](const std::string& name) {
      size_t digits = name.size();
      while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') --digits;
      const bool bare = digits == name.size();
      return std::make_tuple(name.substr(0, digits), !bare,
                             bare ? 0 : std::stoull(name.substr(digits)));
    };
    std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
      const auto [prefix_a, numbered_a, number_a] = key(a);
      const auto [prefix_b, numbered_b, number_b] = key(b);
      if (const int by_prefix = NaturalCompare(prefix_a, prefix_b); by_prefix != 0) {
        return by_prefix < 0;
      }
      return std::tie(numbered_a, number_a) < std::tie(numbered_b, number_b);
    });
    CHECK(ExpandOrFail(compressed) == names);
  }
}

TEST_CASE("Generated expressions expand, count and recompress consistently") {
  const Names expressions = testing::GenerateHostExpressions(kRounds * 2, 5000);
  for (const std::string& expression : expressions) {
    INFO("expression: " << expression);
    const Names expanded = ExpandOrFail(expression);
    CHECK(CountHosts(expression).value() == expanded.size());

    absl::StatusOr<std::string> as_given =
        RecompressHostlist(expression, {.order = HostlistOrder::kAsGiven});
    REQUIRE(as_given.ok());
    CHECK(ExpandOrFail(*as_given) == expanded);

    absl::StatusOr<std::string> sorted = RecompressHostlist(expression);
    REQUIRE(sorted.ok());
    CHECK(Sorted(ExpandOrFail(*sorted)) == Sorted(expanded));

    absl::StatusOr<std::string> unique =
        RecompressHostlist(expression, {.order = HostlistOrder::kSortedUnique});
    REQUIRE(unique.ok());
    CHECK(SortedUnique(ExpandOrFail(*unique)) == SortedUnique(expanded));
  }
}

TEST_CASE("The case generators are deterministic") {
  CHECK(testing::GenerateHostExpressions(50, 7) == testing::GenerateHostExpressions(50, 7));
  CHECK(testing::GenerateHostNames(50, 7) == testing::GenerateHostNames(50, 7));
  CHECK(testing::GenerateHostExpressions(50, 7) != testing::GenerateHostExpressions(50, 8));
}

// Guards against quadratic behaviour, not a benchmark (tools/bench/hostlist_bench.cc
// measures): with O(n^2) these would take minutes, linearithmic they take milliseconds.
TEST_CASE("Compression stays fast for large and adversarial inputs") {
  Names shuffled;
  for (int rack = 0; rack < 20; ++rack) {
    for (int node = 0; node < 10000; ++node) {
      shuffled.push_back(absl::StrCat("rack", rack, "-gpu-", node));
    }
  }
  testing::CaseRandom random(99);
  for (size_t i = shuffled.size() - 1; i > 0; --i) {
    std::swap(shuffled[i], shuffled[random.Below(i + 1)]);
  }
  // Runs of 100 that overlap by half, so that hostlist_coalesce() has overlaps to split.
  Names doubled;
  for (int block = 0; block < 1000; ++block) {
    for (int node = block * 50; node < block * 50 + 100; ++node) {
      doubled.push_back(absl::StrCat("n", node));
    }
  }

  const auto start = std::chrono::steady_clock::now();
  const std::string racks = CompressOrFail(shuffled, HostlistOrder::kSorted);
  const std::string overlapping = CompressOrFail(doubled, HostlistOrder::kSorted);
  const std::string unique = CompressOrFail(doubled, HostlistOrder::kSortedUnique);
  const auto elapsed = std::chrono::steady_clock::now() - start;

  CHECK(racks.rfind("rack0-gpu-[0-9999],rack1-gpu-[0-9999],rack2-gpu-[0-9999]", 0) == 0);
  CHECK(CountHosts(overlapping).value() == doubled.size());
  CHECK(unique == "n[0-50049]");
  CHECK(elapsed < std::chrono::seconds(5));
}

}  // namespace
}  // namespace tidepool::slurm

#include "slurm/hostlist/natural_compare.h"

#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "hostlist_cases.h"

namespace tidepool::slurm {
namespace {

int Sign(int value) { return (value > 0) - (value < 0); }

TEST_CASE("NaturalCompare orders digit runs like strnatcmp") {
  CHECK(NaturalCompare("n2", "n10") < 0);
  CHECK(NaturalCompare("n10", "n2") > 0);
  CHECK(NaturalCompare("rack1-n", "rack10-n") < 0);
  CHECK(NaturalCompare("rack2-n", "rack10-n") < 0);
  CHECK(NaturalCompare("same", "same") == 0);
  CHECK(NaturalCompare("", "") == 0);
  CHECK(NaturalCompare("", "a") < 0);
  // A run starting with '0' compares digit by digit, like a fraction.
  CHECK(NaturalCompare("a01", "a1") < 0);
  CHECK(NaturalCompare("a001", "a01") < 0);
  CHECK(NaturalCompare("a05", "a2") < 0);
  CHECK(NaturalCompare("a010", "a9") < 0);
  // Shorter string first; digits sort after '-' and before letters (ASCII).
  CHECK(NaturalCompare("node", "node-b") < 0);
  CHECK(NaturalCompare("node-", "node1") < 0);
  CHECK(NaturalCompare("node1", "nodea") < 0);
  // Bytes compare as signed chars, as on x86 Linux: UTF-8 sorts before the end of a string.
  CHECK(NaturalCompare("a\xc3\xa9", "a") < 0);
  // Whitespace is skipped.
  CHECK(NaturalCompare("a b", "ab") == 0);
}

TEST_CASE("NaturalCompare is a total order on names without whitespace") {
  testing::CaseRandom random(20240611);
  const std::string alphabet = "0001129a-b";
  std::vector<std::string> words;
  for (int i = 0; i < 300; ++i) {
    std::string word;
    const uint64_t length = random.Below(7);
    for (uint64_t c = 0; c < length; ++c) word.push_back(alphabet[random.Below(alphabet.size())]);
    words.push_back(word);
  }
  for (const std::string& a : words) {
    for (const std::string& b : words) {
      const int ab = Sign(NaturalCompare(a, b));
      REQUIRE(ab == -Sign(NaturalCompare(b, a)));
      REQUIRE((ab == 0) == (a == b));
    }
  }
  for (int i = 0; i < 200000; ++i) {
    const std::string& a = random.Pick(words);
    const std::string& b = random.Pick(words);
    const std::string& c = random.Pick(words);
    if (NaturalCompare(a, b) < 0 && NaturalCompare(b, c) < 0) {
      INFO(a << " < " << b << " < " << c);
      REQUIRE(NaturalCompare(a, c) < 0);
    }
  }
}

}  // namespace
}  // namespace tidepool::slurm

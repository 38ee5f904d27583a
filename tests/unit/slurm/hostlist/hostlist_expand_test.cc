#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "slurm/hostlist/hostlist.h"

namespace tidepool::slurm {
namespace {

using Names = std::vector<std::string>;

Names Expand(absl::string_view expression) {
  absl::StatusOr<Names> names = ExpandHostlist(expression);
  INFO("expression: " << std::string(expression));
  REQUIRE(names.ok());
  return *names;
}

std::string ExpandError(absl::string_view expression, const ExpandOptions& options = {}) {
  absl::StatusOr<Names> names = ExpandHostlist(expression, options);
  INFO("expression: " << std::string(expression));
  REQUIRE_FALSE(names.ok());
  CHECK(names.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(names.status().message());
}

TEST_CASE("ExpandHostlist expands ranges and lists inside one bracket") {
  CHECK(Expand("n[1-3]") == Names{"n1", "n2", "n3"});
  CHECK(Expand("gpu-[01-08,10]") == Names{"gpu-01", "gpu-02", "gpu-03", "gpu-04", "gpu-05",
                                          "gpu-06", "gpu-07", "gpu-08", "gpu-10"});
  CHECK(Expand("n[3,1-2]") == Names{"n3", "n1", "n2"});
  CHECK(Expand("n[5]") == Names{"n5"});
  CHECK(Expand("[1-3]") == Names{"1", "2", "3"});
}

TEST_CASE("ExpandHostlist takes zero padding from the low bound, as _parse_single_range does") {
  CHECK(Expand("n[9-10]") == Names{"n9", "n10"});
  CHECK(Expand("n[09-10]") == Names{"n09", "n10"});
  CHECK(Expand("n[8-010]") == Names{"n8", "n9", "n10"});
  CHECK(Expand("n[010-12]") == Names{"n010", "n011", "n012"});
  CHECK(Expand("n[098-101]") == Names{"n098", "n099", "n100", "n101"});
  CHECK(Expand("n[0-1]") == Names{"n0", "n1"});
  CHECK(Expand("n[00-01]") == Names{"n00", "n01"});
}

TEST_CASE("ExpandHostlist splits top-level lists and respects brackets") {
  CHECK(Expand("a[1-2],b,c[3-4]") == Names{"a1", "a2", "b", "c3", "c4"});
  CHECK(Expand(" a , b\tc\nd ") == Names{"a", "b", "c", "d"});
  CHECK(Expand("a,,b") == Names{"a", "b"});
  CHECK(Expand("node7") == Names{"node7"});
  CHECK(Expand("login") == Names{"login"});
}

TEST_CASE("ExpandHostlist keeps duplicates like scontrol show hostnames") {
  CHECK(Expand("n1,n1,n[1-2]") == Names{"n1", "n1", "n1", "n2"});
  CHECK(Expand("n[1-2,2-3]") == Names{"n1", "n2", "n2", "n3"});
}

TEST_CASE("ExpandHostlist handles digits in the prefix and text after the bracket") {
  CHECK(Expand("gpu2-node[1-3]") == Names{"gpu2-node1", "gpu2-node2", "gpu2-node3"});
  CHECK(Expand("n[1-3]-ib") == Names{"n1-ib", "n2-ib", "n3-ib"});
  CHECK(Expand("n1[0-3]") == Names{"n10", "n11", "n12", "n13"});
}

TEST_CASE("ExpandHostlist orders several brackets as Slurm's _push_range_list recursion does") {
  CHECK(Expand("rack[1-2]-node[01-02]") ==
        Names{"rack1-node01", "rack1-node02", "rack2-node01", "rack2-node02"});
  CHECK(Expand("n[1-2][3-4]") == Names{"n13", "n14", "n23", "n24"});
  // With three brackets the second varies slowest, then the first, then the last.
  CHECK(Expand("a[1-2]b[3-4]c[5-6]") ==
        Names{"a1b3c5", "a1b3c6", "a2b3c5", "a2b3c6", "a1b4c5", "a1b4c6", "a2b4c5", "a2b4c6"});
  CHECK(Expand("a[1-2]b[3-4]c[5-6]-d") == Names{"a1b3c5-d", "a1b3c6-d", "a2b3c5-d", "a2b3c6-d",
                                                "a1b4c5-d", "a1b4c6-d", "a2b4c5-d", "a2b4c6-d"});
  // Four brackets: third slowest, then second, then first, last fastest.
  const Names four = Expand("a[1-2]b[1-2]c[1-2]d[1-2]");
  REQUIRE(four.size() == 16);
  CHECK(four[0] == "a1b1c1d1");
  CHECK(four[1] == "a1b1c1d2");
  CHECK(four[2] == "a2b1c1d1");
  CHECK(four[4] == "a1b2c1d1");
  CHECK(four[8] == "a1b1c2d1");
}

TEST_CASE("ExpandHostlist handles large ranges up to Slurm's per-range limit") {
  const Names names = Expand("n[1-65536]");
  REQUIRE(names.size() == 65536);
  CHECK(names.front() == "n1");
  CHECK(names.back() == "n65536");
  const Names padded = Expand("n[000001-065536],n[65537-131072]");
  REQUIRE(padded.size() == 131072);
  CHECK(padded[0] == "n000001");
  CHECK(padded[65535] == "n065536");
  CHECK(padded[65536] == "n65537");
}

TEST_CASE("ExpandHostlist rejects malformed expressions and names the part") {
  CHECK(ExpandError("") == "host expression \"\" names no hosts");
  CHECK(ExpandError(" , \n") == "host expression \" , \\n\" names no hosts");
  CHECK(ExpandError("a,n[1-3") == "host expression element \"n[1-3\": '[' is never closed");
  CHECK(ExpandError("a[1,2,b") == "host expression element \"a[1,2,b\": '[' is never closed");
  CHECK(ExpandError("a,n1-3],b") ==
        "host expression element \"n1-3]\": ']' without a matching '['");
  CHECK(ExpandError("n[[1]]") == "host expression element \"n[[\": '[' inside brackets");
  CHECK(ExpandError("n[1, 2]") == "host expression element \"n[1, \": whitespace inside brackets");
  CHECK(ExpandError("n[5-1]") ==
        "host expression element \"n[5-1]\": range \"5-1\" is reversed; write 1-5");
  CHECK(ExpandError("x,n[a-c]") ==
        "host expression element \"n[a-c]\": range \"a-c\" is not a number or a lo-hi "
        "pair of numbers");
  CHECK(ExpandError("n[]") == "host expression element \"n[]\": empty brackets \"[]\"");
  CHECK(ExpandError("n[1,,2]") ==
        "host expression element \"n[1,,2]\": empty range between commas in brackets");
  CHECK(ExpandError("n[1,]") ==
        "host expression element \"n[1,]\": empty range between commas in brackets");
  CHECK(ExpandError("n\x01") == "host expression element \"n\\x01\": control character");
  CHECK(ExpandError("n[99999999999999999999]") ==
        "host expression element \"n[99999999999999999999]\": number in range "
        "\"99999999999999999999\" is larger than 18446744073709551614");
  // Forms Slurm's strtoul()-based parser lets through by accident.
  for (absl::string_view accidental :
       {"n[1-]", "n[-1]", "n[1--2]", "n[+2]", "n[1x2]", "n[1-2-3]"}) {
    const std::string message = ExpandError(accidental);
    CHECK(message.find("is not a number or a lo-hi pair of numbers") != std::string::npos);
  }
}

TEST_CASE("ExpandHostlist refuses oversized expansions before allocating") {
  CHECK(ExpandError("n[0-999999999]") ==
        "host expression element \"n[0-999999999]\": range \"0-999999999\" names 1000000000 "
        "hosts; Slurm accepts at most 65536 in one range");
  CHECK(ExpandError("a[1-60000]b[1-60000]") ==
        "host expression \"a[1-60000]b[1-60000]\" names 3600000000 hosts, more than the limit "
        "of 1000000");
  CHECK(ExpandError("a[1-60000],b[1-60000]", ExpandOptions{.max_hosts = 100000}) ==
        "host expression \"a[1-60000],b[1-60000]\" names 120000 hosts, more than the limit of "
        "100000");
  CHECK(ExpandError("a[0-40000,50000-90000]b[1]") ==
        "host expression element \"a[0-40000,50000-90000]b[1]\": bracket 1 names 80002 values; "
        "Slurm accepts at most 65536 in a bracket that is not the last one");
  CHECK(ExpandError("n[1-10]x[1-2]", ExpandOptions{.max_hosts = 19}) ==
        "host expression \"n[1-10]x[1-2]\" names 20 hosts, more than the limit of 19");
  CHECK(ExpandHostlist("n[1-10]x[1-2]", ExpandOptions{.max_hosts = 20}).ok());
}

TEST_CASE("CountHosts counts without expanding") {
  CHECK(CountHosts("n[1-3]").value() == 3);
  CHECK(CountHosts("a[1-2],b,c[3-4]").value() == 5);
  CHECK(CountHosts("rack[1-2]-node[01-02]").value() == 4);
  CHECK(CountHosts("n1,n1").value() == 2);
  CHECK(CountHosts("a[1-60000]b[1-60000]").value() == 3600000000ULL);
  CHECK(CountHosts("a[1-60000]b[1-60000]c[1-60000]d[1-60000]").value() ==
        60000ULL * 60000ULL * 60000ULL * 60000ULL);
  absl::StatusOr<uint64_t> too_many =
      CountHosts("a[1-60000]b[1-60000]c[1-60000]d[1-60000]e[1-60000]");
  REQUIRE_FALSE(too_many.ok());
  CHECK(too_many.status().message() ==
        "host expression element \"a[1-60000]b[1-60000]c[1-60000]d[1-60000]e[1-60000]\": names "
        "more than 2^64 hosts");
  CHECK(CountHosts("n[5-1]").status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(CountHosts("").status().code() == absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tidepool::slurm

#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "slurm/hostlist/hostlist.h"

namespace tidepool::slurm {
namespace {

using Names = std::vector<std::string>;

std::string Compress(const Names& names, HostlistOrder order = HostlistOrder::kSorted) {
  absl::StatusOr<std::string> compressed = CompressHostNames(names, {.order = order});
  REQUIRE(compressed.ok());
  return *compressed;
}

std::string Recompress(absl::string_view expression, HostlistOrder order = HostlistOrder::kSorted) {
  absl::StatusOr<std::string> compressed = RecompressHostlist(expression, {.order = order});
  INFO("expression: " << std::string(expression));
  REQUIRE(compressed.ok());
  return *compressed;
}

TEST_CASE("CompressHostNames merges consecutive numbers of one prefix") {
  CHECK(Compress({"gpu-01", "gpu-02", "gpu-03", "gpu-04", "gpu-05", "gpu-06", "gpu-07", "gpu-08",
                  "gpu-10"}) == "gpu-[01-08,10]");
  CHECK(Compress({"n1", "n2", "n3"}) == "n[1-3]");
  CHECK(Compress({"n1"}) == "n1");
  CHECK(Compress({"login"}) == "login");
  CHECK(Compress({}) == "");
  CHECK(Compress({"gpu2-node1", "gpu2-node2", "gpu2-node3"}) == "gpu2-node[1-3]");
  CHECK(Compress({"1", "2", "3"}) == "[1-3]");
  CHECK(Compress({"a1", "a2", "a3", "b1", "c1"}) == "a[1-3],b1,c1");
}

TEST_CASE("CompressHostNames keeps zero padding widths apart as _width_equiv does") {
  CHECK(Compress({"n9", "n10"}) == "n[9-10]");
  CHECK(Compress({"n09", "n10"}) == "n[09-10]");
  CHECK(Compress({"n098", "n099", "n100", "n101"}) == "n[098-101]");
  CHECK(Compress({"n09", "n100"}) == "n[09,100]");
  // "n1" and "n01" are different hosts; the unpadded range sorts first.
  CHECK(Compress({"n01", "n1", "n2"}) == "n[1-2,01]");
  CHECK(Compress({"n01", "n1", "n2"}, HostlistOrder::kAsGiven) == "n[01,1-2]");
  CHECK(Compress({"n8", "n09", "n10"}) == "n[8,09-10]");
  CHECK(Compress({"n5", "n010", "n100"}) == "n[5,010,100]");
  CHECK(Compress({"n0", "n00", "n000"}) == "n[0,00,000]");
}

TEST_CASE("kSorted orders like hostlist_sort: natural prefix order, bare names first") {
  CHECK(Compress({"n10", "n9", "n1"}) == "n[1,9-10]");
  CHECK(Compress({"rack10-n1", "rack2-n1", "rack1-n1"}) == "rack1-n1,rack2-n1,rack10-n1");
  CHECK(Compress({"a1-n1", "a01-n1", "a001-n1"}) == "a001-n1,a01-n1,a1-n1");
  CHECK(Compress({"n2", "n", "n1"}) == "n,n[1-2]");
  CHECK(Compress({"login", "head"}) == "head,login");
  CHECK(Compress({"node-b", "node1", "node"}) == "node,node1,node-b");
}

TEST_CASE("kSorted keeps duplicates like scontrol show hostlistsorted") {
  CHECK(Compress({"n1", "n1"}) == "n[1,1]");
  CHECK(Compress({"login", "login"}) == "login,login");
  // hostlist_coalesce() cuts overlapping ranges into pieces without dropping a host.
  CHECK(Compress({"n1", "n2", "n3", "n2", "n3", "n4"}) == "n[1-2,2-3,3-4]");
  CHECK(Recompress("n[1-10],n[3-5]") == "n[1-3,3-4,4-5,5-10]");
  CHECK(Recompress("n[1-5],n[3]") == "n[1-3,3-5]");
  CHECK(Recompress("n[1-5],n[5-7]") == "n[1-5,5-7]");
  CHECK(Recompress("n[1-3],n[1-3]") == "n[1,1-2,2-3,3]");
}

TEST_CASE("kSortedUnique drops duplicates like hostlist_uniq") {
  const HostlistOrder unique = HostlistOrder::kSortedUnique;
  CHECK(Compress({"n1", "n1"}, unique) == "n1");
  CHECK(Compress({"login", "login", "n2", "n1"}, unique) == "login,n[1-2]");
  CHECK(Compress({"n1", "n2", "n3", "n2", "n3", "n4"}, unique) == "n[1-4]");
  CHECK(Recompress("n[1-10],n[3-5],n[12]", unique) == "n[1-10,12]");
  CHECK(Recompress("n[1-2],n[01-02]", unique) == "n[1-2,01-02]");
  // hostlist_uniq() only joins neighbours after sorting: n[02-05] sorts between the unpadded
  // n[9-12] and n[11-12] (a padded range goes after unpadded ones with fewer digits and by
  // number among those with as many), so n11 and n12 stay twice, as in Slurm.
  CHECK(Recompress("n[9-12],n[02-05],n[11-12]", unique) == "n[9-12,02-05,11-12]");
}

TEST_CASE("kAsGiven matches scontrol show hostlist: no sorting, neighbours merge") {
  const HostlistOrder as_given = HostlistOrder::kAsGiven;
  CHECK(Compress({"n3", "n1", "n2"}, as_given) == "n[3,1-2]");
  CHECK(Compress({"n1", "n1"}, as_given) == "n[1,1]");
  CHECK(Compress({"b1", "a1", "b2"}, as_given) == "b1,a1,b2");
  // Slurm's own test (contribs/perlapi/libslurm/perl/t/21-hostlist.t).
  HostlistBuilder builder({.order = as_given});
  REQUIRE(builder.AddHostlist("node0,node3,node4,node8,linux,linux2,linux5,node4").ok());
  REQUIRE(builder.AddHostlist("node12,node15,linux8").ok());
  REQUIRE(builder.AddHost("linux23").ok());
  CHECK(builder.host_count() == 12);
  CHECK(builder.Build() == "node[0,3-4,8],linux,linux[2,5],node[4,12,15],linux[8,23]");
  // The same hosts sorted.
  HostlistBuilder sorted;
  REQUIRE(sorted
              .AddHostlist(
                  "node0,node3,node4,node8,linux,linux2,linux5,node4,node12,node15,linux8,linux23")
              .ok());
  CHECK(sorted.Build() == "linux,linux[2,5,8,23],node[0,3-4,4,8,12,15]");
}

TEST_CASE("RecompressHostlist keeps the expression's own prefixes as hostlist_push does") {
  CHECK(Recompress("n1[0-3]") == "n1[0-3]");
  CHECK(Compress({"n10", "n11", "n12", "n13"}) == "n[10-13]");
  CHECK(Recompress("rack[1-2]-node[01-02]") == "rack1-node[01-02],rack2-node[01-02]");
  CHECK(Recompress("n[1-3,5]") == "n[1-3,5]");
  CHECK(Recompress("n[3-5,1-2]", HostlistOrder::kAsGiven) == "n[3-5,1-2]");
  CHECK(Recompress("n[3-5,1-2]") == "n[1-5]");
  CHECK(Recompress("n[1-2],n3") == "n[1-3]");
  CHECK(Recompress("n[8-9],n[10-11]") == "n[8-11]");
  CHECK(Recompress("n[8-9],n[010-011]") == "n[8-9,010-011]");
  // Hosts with text after the bracket are pushed as whole names and never form ranges.
  CHECK(Recompress("n[1-3]-ib") == "n1-ib,n2-ib,n3-ib");
  CHECK(Recompress("n[10-11]-ib,n[9]-ib") == "n9-ib,n10-ib,n11-ib");
}

TEST_CASE("kSorted keeps hosts where Slurm's hostlist_coalesce loses them") {
  // Slurm (checked against libslurm 22.05) prints rack10-n[3-9,9-10,10-11,11-12,12-19]:
  // after cutting n[9-12] down to n12 it joins it with the padded n[03-19], empties a range
  // and drops n20-n29 and n03-n19.
  CHECK(Recompress("rack10-n[3-29,03-19,9-12]") == "rack10-n[3-9,9-10,10-11,11-12,12-29,03-19]");
  // Slurm compares numbers as 32-bit ints and prints n[4294967296], dropping n0.
  CHECK(Compress({"n4294967296", "n0"}) == "n[0,4294967296]");
  CHECK(Compress({"n4294967295", "n4294967294"}) == "n[4294967294-4294967295]");
}

TEST_CASE("CompressHostNames keeps names whose number does not fit in 64 bits whole") {
  CHECK(Compress({"n99999999999999999999", "n1"}) == "n1,n99999999999999999999");
  CHECK(Compress({"n0000000000000000000000001", "n0000000000000000000000002"}) ==
        "n[0000000000000000000000001-0000000000000000000000002]");
}

TEST_CASE("HostlistBuilder rejects names that would not survive a round trip") {
  HostlistBuilder builder;
  CHECK(builder.AddHost("").message() == "host name is empty");
  CHECK(builder.AddHost("a,b").message() ==
        "host name \"a,b\" contains \",\"; names may not contain separators, brackets or control "
        "characters");
  CHECK(builder.AddHost("a b").code() == absl::StatusCode::kInvalidArgument);
  CHECK(builder.AddHost("n[1]").code() == absl::StatusCode::kInvalidArgument);
  CHECK(builder.AddHost("n]").code() == absl::StatusCode::kInvalidArgument);
  CHECK(builder.AddHost("n\r").message() ==
        "host name \"n\\r\" contains \"\\r\"; names may not contain separators, brackets or "
        "control characters");
  CHECK(builder.AddHostlist("n[5-1]").message() ==
        "host expression element \"n[5-1]\": range \"5-1\" is reversed; write 1-5");
  CHECK(builder.empty());
  CHECK(builder.Build() == "");
  CHECK(CompressHostNames(Names{"ok1", "bad,name"}).status().code() ==
        absl::StatusCode::kInvalidArgument);
}

TEST_CASE("HostlistBuilder::AddHostlist applies the host limit before adding anything") {
  HostlistBuilder builder({.max_hosts = 10});
  REQUIRE(builder.AddHostlist("n[1-10]").ok());
  CHECK(builder.AddHostlist("m[1-11]").message() ==
        "host expression \"m[1-11]\" names 11 hosts, more than the limit of 10");
  CHECK(builder.host_count() == 10);
  CHECK(builder.Build() == "n[1-10]");
}

TEST_CASE("HostlistBuilder can be built repeatedly and cleared") {
  HostlistBuilder builder;
  REQUIRE(builder.AddHost("n2").ok());
  REQUIRE(builder.AddHost("n1").ok());
  CHECK(builder.Build() == "n[1-2]");
  REQUIRE(builder.AddHost("n3").ok());
  CHECK(builder.Build() == "n[1-3]");
  CHECK(builder.host_count() == 3);
  builder.Clear();
  CHECK(builder.empty());
  REQUIRE(builder.AddHost("m7").ok());
  CHECK(builder.Build() == "m7");
}

}  // namespace
}  // namespace tidepool::slurm

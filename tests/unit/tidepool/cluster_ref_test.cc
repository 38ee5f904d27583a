// --slurm_cluster's <namespace>/<name>, and which cluster a NodeSet names.
#include "tidepool/cluster_ref.h"

#include <catch2/catch_test_macros.hpp>

#include "absl/strings/match.h"

namespace tidepool::api {
namespace {

TEST_CASE("a cluster is named <namespace>/<name>") {
  absl::StatusOr<ClusterRef> ref = ParseClusterRef("hpc/research");
  REQUIRE(ref.ok());
  CHECK(*ref == ClusterRef{.namespace_name = "hpc", .name = "research"});
  CHECK(ref->ToString() == "hpc/research");
  for (const char* bad : {"", "research", "hpc/", "/research", "hpc/research/x", "HPC/research",
                          "hpc/re_search", "-hpc/research", "hpc/research-", "hpc/re.search"}) {
    absl::Status status = ParseClusterRef(bad).status();
    INFO(bad);
    CHECK(absl::IsInvalidArgument(status));
    CHECK(absl::StrContains(status.message(), "--slurm_cluster=\""));
  }
  CHECK(absl::StrContains(ParseClusterRef("x", "--other").status().message(), "--other=\"x\""));
}

TEST_CASE("a NodeSet's cluster reads even when the rest of its spec does not parse") {
  CHECK(NodeSetClusterName(R"({"spec":{"clusterRef":{"name":"research"},"replicas":"x"}})") ==
        "research");
  CHECK(NodeSetClusterKey("hpc", R"({"spec":{"clusterRef":{"name":"research"}}})") ==
        "hpc/research");
  for (const char* unreadable : {R"({"spec":{}})", R"({"spec":{"clusterRef":{"name":7}}})",
                                 R"({"metadata":{}})", "[]", "not json"}) {
    INFO(unreadable);
    CHECK_FALSE(NodeSetClusterName(unreadable).has_value());
    CHECK(NodeSetClusterKey("hpc", unreadable).empty());
  }
}

}  // namespace
}  // namespace tidepool::api

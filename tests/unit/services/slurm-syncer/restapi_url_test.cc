// The slurmrestd URLs of --slurm_cluster: in-cluster DNS, or the ClusterIP of the
// cluster's restapi Service.
#include "restapi_url.h"

#include <catch2/catch_test_macros.hpp>

#include "absl/strings/match.h"

namespace tidepool::syncer {
namespace {

TEST_CASE("the in-cluster URL is the restapi Service's DNS name") {
  CHECK(RestUrlByDns({.namespace_name = "hpc", .name = "research"}) ==
        "http://research-restapi.hpc.svc:6820");
}

TEST_CASE("the Service URL is its ClusterIP and the slurmrestd port") {
  CHECK(*RestUrlFromService(
            R"({"spec":{"clusterIP":"10.96.4.7","ports":[{"name":"http","port":6820}]}})") ==
        "http://10.96.4.7:6820");
  CHECK(*RestUrlFromService(R"({"spec":{"clusterIP":"fd00::17","ports":[{"port":6820}]}})") ==
        "http://[fd00::17]:6820");
}

TEST_CASE("a Service without a ClusterIP or the port gives no URL") {
  for (const char* json : {R"({"spec":{"clusterIP":"None","ports":[{"port":6820}]}})",
                           R"({"spec":{"ports":[{"port":6820}]}})", R"({"metadata":{}})"}) {
    absl::StatusOr<std::string> url = RestUrlFromService(json);
    INFO(json);
    CHECK(absl::IsFailedPrecondition(url.status()));
    CHECK(absl::StrContains(url.status().message(), "ClusterIP"));
  }
  absl::StatusOr<std::string> other_port =
      RestUrlFromService(R"({"spec":{"clusterIP":"10.96.4.7","ports":[{"port":80}]}})");
  CHECK(absl::IsFailedPrecondition(other_port.status()));
  CHECK(absl::StrContains(other_port.status().message(), "6820"));
  CHECK_FALSE(RestUrlFromService("not json").ok());
}

}  // namespace
}  // namespace tidepool::syncer

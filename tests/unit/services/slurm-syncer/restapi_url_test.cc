// Where the --slurm_cluster syncer finds slurmrestd and how it trusts it: in-cluster DNS
// over HTTPS, optionally connected at the restapi Service's ClusterIP, with the CA of the
// cluster's TLS Secret.
#include "restapi_url.h"

#include <catch2/catch_test_macros.hpp>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace tidepool::syncer {
namespace {

const api::ClusterRef kCluster{.namespace_name = "hpc", .name = "research"};

TEST_CASE("the URL is the restapi Service's DNS name over HTTPS") {
  CHECK(RestApiHost(kCluster) == "research-restapi.hpc.svc");
  CHECK(RestUrlByDns(kCluster) == "https://research-restapi.hpc.svc:6820");
}

TEST_CASE("through the Service, connections go to its ClusterIP for the DNS name") {
  CHECK(*ConnectToFromService(
            R"({"spec":{"clusterIP":"10.96.4.7","ports":[{"name":"https","port":6820}]}})",
            "research-restapi.hpc.svc") == "research-restapi.hpc.svc:6820:10.96.4.7:6820");
  CHECK(*ConnectToFromService(R"({"spec":{"clusterIP":"fd00::17","ports":[{"port":6820}]}})",
                              "h") == "h:6820:[fd00::17]:6820");
}

TEST_CASE("a Service without a ClusterIP or the port gives no address") {
  for (const char* json : {R"({"spec":{"clusterIP":"None","ports":[{"port":6820}]}})",
                           R"({"spec":{"ports":[{"port":6820}]}})", R"({"metadata":{}})"}) {
    absl::StatusOr<std::string> to = ConnectToFromService(json, "h");
    INFO(json);
    CHECK(absl::IsFailedPrecondition(to.status()));
    CHECK(absl::StrContains(to.status().message(), "ClusterIP"));
  }
  absl::StatusOr<std::string> other_port =
      ConnectToFromService(R"({"spec":{"clusterIP":"10.96.4.7","ports":[{"port":80}]}})", "h");
  CHECK(absl::IsFailedPrecondition(other_port.status()));
  CHECK(absl::StrContains(other_port.status().message(), "6820"));
  CHECK_FALSE(ConnectToFromService("not json", "h").ok());
}

// A Secret's JSON with `data`, controlled by the SlurmCluster of `uid`.
std::string Secret(const std::string& data, const std::string& uid = "uid-1") {
  return absl::StrCat(R"({"metadata":{"ownerReferences":[{"apiVersion":"tidepool.dev/v1alpha1",)",
                      R"("kind":"SlurmCluster","name":"research","uid":")", uid,
                      R"(","controller":true}]},"data":)", data, "}");
}

TEST_CASE("the CA is the TLS Secret's ca.crt; a Secret without one says what is wrong") {
  const std::string pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  const std::string usable =
      Secret(absl::StrCat(R"({"ca.crt":")", absl::Base64Escape(pem), R"("})"));
  CHECK(*CaFromTlsSecret(usable, "hpc/research-restapi-tls", "uid-1") == pem);
  for (const auto& [json, problem] :
       {std::pair<std::string, const char*>{Secret("{}"), "has no data key \"ca.crt\""},
        {Secret(R"({"ca.crt":"*"})"), "that is not base64"},
        {Secret(absl::StrCat(R"({"ca.crt":")", absl::Base64Escape("not a certificate"), R"("})")),
         "holds no PEM certificate"},
        // Trusted for its owner, never for its name alone.
        {Secret(absl::StrCat(R"({"ca.crt":")", absl::Base64Escape(pem), R"("})"), "uid-2"),
         "is not controlled by the SlurmCluster (uid uid-1), so its CA is not trusted"},
        {absl::StrCat(R"({"data":{"ca.crt":")", absl::Base64Escape(pem), R"("}})"),
         "is not controlled by"}}) {
    INFO(json);
    absl::StatusOr<std::string> ca = CaFromTlsSecret(json, "hpc/research-restapi-tls", "uid-1");
    CHECK(absl::IsFailedPrecondition(ca.status()));
    CHECK(absl::StrContains(ca.status().message(), "Secret hpc/research-restapi-tls "));
    CHECK(absl::StrContains(ca.status().message(), problem));
  }
}

TEST_CASE("an API server outage reuses the last endpoint; a missing object does not") {
  const RestEndpoint last{.base_url = "https://a:6820", .ca_pem = "CA1"};
  const RestEndpoint fresh{.base_url = "https://a:6820", .ca_pem = "CA2"};
  CHECK(EndpointToUse(fresh, last)->ca_pem == "CA2");
  CHECK(EndpointToUse(fresh, std::nullopt)->ca_pem == "CA2");
  CHECK(EndpointToUse(absl::UnavailableError("API server down"), last)->ca_pem == "CA1");
  CHECK(EndpointToUse(absl::DeadlineExceededError("slow"), last)->ca_pem == "CA1");
  // The Secret deleted (being replaced) or unusable: wait for it, never the old CA.
  CHECK(absl::IsFailedPrecondition(
      EndpointToUse(absl::FailedPreconditionError("Secret hpc/x not found"), last).status()));
  CHECK(absl::IsUnavailable(EndpointToUse(absl::UnavailableError("down"), std::nullopt).status()));
}

}  // namespace
}  // namespace tidepool::syncer

#include "restapi_builders.h"

#include <catch2/catch_test_macros.hpp>
#include <string>

#include "absl/strings/match.h"
#include "builder_test_support.h"
#include "component_step.h"

namespace tidepool::cluster {
namespace {

v1::SlurmCluster Cluster() {
  v1::SlurmCluster cluster = ResearchCluster();
  cluster.mutable_spec()->mutable_images()->set_rest_api("registry.example/slurmrestd:26.05");
  return cluster;
}

std::string Args(const rapidjson::Value& container) {
  std::string joined;
  for (const rapidjson::Value& arg : (*At(container, {"args"})).GetArray()) {
    joined += std::string(arg.GetString()) + " ";
  }
  return joined;
}

TEST_CASE("slurmrestd runs unprivileged with JWT auth, the config and the munge key") {
  const v1::SlurmCluster cluster = Cluster();
  const rapidjson::Document deployment = Parse(RestApiDeploymentBody(
      {.cluster = &cluster, .munge_key_secret = "mk", .tls_secret = "research-restapi-tls"}));
  CHECK(StringAt(deployment, {"kind"}) == "Deployment");
  CHECK(StringAt(deployment, {"metadata", "name"}) == "research-restapi");
  CHECK(StringAt(deployment, {"metadata", "ownerReferences", "0", "uid"}) == "uid-1");
  CHECK(IntAt(deployment, {"spec", "replicas"}) == 1);
  CHECK(StringAt(deployment, {"spec", "selector", "matchLabels", "tidepool.dev/component"}) ==
        "slurmrestd");
  const rapidjson::Value& pod = *At(deployment, {"spec", "template", "spec"});
  const rapidjson::Value& container = *At(pod, {"containers", "0"});
  CHECK(StringAt(container, {"image"}) == "registry.example/slurmrestd:26.05");
  // Only on the pod's loopback: the network reaches it through the TLS front alone.
  CHECK(Args(container) == "slurmrestd -s openapi/slurmctld -a rest_auth/jwt 127.0.0.1:6821 ");
  CHECK(At(container, {"ports"}) == nullptr);
  CHECK(EnvValue(container, "TIDEPOOL_RUN_AS") == "slurmrest");
  CHECK(EnvValue(container, "SLURMRESTD_JSON") == "compact");
  CHECK(StringAt(container, {"readinessProbe", "exec", "command", "2"}) ==
        "exec 3<>/dev/tcp/127.0.0.1/6821");
  CHECK(IntAt(pod, {"terminationGracePeriodSeconds"}) == 5);
  CHECK(StringAt(pod, {"volumes", "0", "configMap", "name"}) == "research-slurm-config");
  CHECK(StringAt(pod, {"volumes", "1", "secret", "secretName"}) == "mk");
  CHECK(StringAt(pod, {"volumes", "2", "secret", "secretName"}) == "research-restapi-tls");
  // slurmrestd verifies no token itself: the JWT key stays with slurmctld.
  CHECK_FALSE(absl::StrContains(RestApiDeploymentBody({.cluster = &cluster}), "jwt-key"));
}

TEST_CASE("the TLS front serves 6820 with the Secret's certificate and passes to slurmrestd") {
  const v1::SlurmCluster cluster = Cluster();
  const rapidjson::Document deployment = Parse(RestApiDeploymentBody(
      {.cluster = &cluster, .tls_secret = "research-restapi-tls", .tls_cert_digest = "sha256:ab"}));
  const rapidjson::Value& pod = *At(deployment, {"spec", "template", "spec"});
  const rapidjson::Value& front = *At(pod, {"containers", "1"});
  CHECK(StringAt(front, {"name"}) == "tls");
  CHECK(StringAt(front, {"image"}) == "registry.example/slurmrestd:26.05");
  CHECK(Args(front) == "tidepool-tls-front ");
  CHECK(EnvValue(front, "TIDEPOOL_TLS_DIR") == "/etc/tidepool/restapi-tls");
  CHECK(EnvValue(front, "TIDEPOOL_TLS_ACCEPT") == "6820");
  CHECK(EnvValue(front, "TIDEPOOL_TLS_CONNECT") == "127.0.0.1:6821");
  CHECK(EnvValue(front, "TIDEPOOL_RUN_AS") == "slurmrest");
  CHECK(StringAt(front, {"ports", "0", "name"}) == "https");
  CHECK(IntAt(front, {"ports", "0", "containerPort"}) == 6820);
  CHECK(StringAt(front, {"volumeMounts", "0", "name"}) == "tls");
  CHECK(StringAt(pod, {"volumes", "2", "name"}) == "tls");
  CHECK(IntAt(pod, {"volumes", "2", "secret", "defaultMode"}) == 0400);
  // A new certificate rolls the pods.
  CHECK(StringAt(deployment, {"spec", "template", "metadata", "annotations",
                              "tidepool.dev/tls-cert-digest"}) == "sha256:ab");
}

TEST_CASE("slurmrestd serves the accounting API only with accounting") {
  v1::SlurmCluster cluster = Cluster();
  cluster.mutable_spec()->mutable_accounting()->set_enabled(true);
  cluster.mutable_spec()->mutable_rest_api()->set_replicas(3);
  const rapidjson::Document deployment = Parse(RestApiDeploymentBody({.cluster = &cluster}));
  CHECK(absl::StrContains(Args(*At(deployment, {"spec", "template", "spec", "containers", "0"})),
                          "-s openapi/slurmctld,openapi/slurmdbd "));
  CHECK(IntAt(deployment, {"spec", "replicas"}) == 3);
}

TEST_CASE("the REST API Service selects the slurmrestd pods on 6820, HTTPS") {
  const rapidjson::Document service = Parse(RestApiServiceBody(Cluster()));
  CHECK(StringAt(service, {"metadata", "name"}) == "research-restapi");
  CHECK(At(service, {"spec", "clusterIP"}) == nullptr);  // a ClusterIP the API server picks
  CHECK(StringAt(service, {"spec", "selector", "tidepool.dev/component"}) == "slurmrestd");
  CHECK(StringAt(service, {"spec", "selector", "tidepool.dev/cluster"}) == "research");
  CHECK(IntAt(service, {"spec", "ports", "0", "port"}) == 6820);
  CHECK(StringAt(service, {"spec", "ports", "0", "name"}) == "https");
}

TEST_CASE("a REST API spec the builders cannot use is refused naming the field") {
  CHECK(ValidateRestApiSpec(Cluster()).ok());
  v1::SlurmCluster no_image = Cluster();
  no_image.mutable_spec()->mutable_images()->clear_rest_api();
  CHECK(absl::StrContains(ValidateRestApiSpec(no_image).message(), "spec.images.restApi"));
  for (int replicas : {0, 11, -1}) {
    v1::SlurmCluster cluster = Cluster();
    cluster.mutable_spec()->mutable_rest_api()->set_replicas(replicas);
    const absl::Status status = ValidateRestApiSpec(cluster);
    CAPTURE(replicas);
    CHECK(absl::IsInvalidArgument(status));
    CHECK(absl::StrContains(status.message(), "spec.restApi.replicas"));
  }
}

TEST_CASE("a Deployment's available replicas are read from its status") {
  CHECK(AvailableReplicasOfDeployment(
            R"({"metadata":{"name":"d"},"status":{"availableReplicas":2}})") == 2);
  CHECK(AvailableReplicasOfDeployment(R"({"metadata":{"name":"d"}})") == 0);
  CHECK(AvailableReplicasOfDeployment("[") == 0);
}

}  // namespace
}  // namespace tidepool::cluster

#include "controller_builders.h"

#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "applied_hash.h"
#include "builder_test_support.h"
#include "component_step.h"
#include "google/protobuf/util/json_util.h"
#include "k8s/object_json.h"

namespace tidepool::cluster {
namespace {

v1::SlurmCluster Cluster(int replicas = 1) {
  v1::SlurmCluster cluster = ResearchCluster();
  cluster.mutable_spec()->mutable_images()->set_controller("registry.example/slurmctld:26.05");
  cluster.mutable_spec()->mutable_controller()->set_replicas(replicas);
  return cluster;
}

TEST_CASE("the slurmctld StatefulSet runs the image with config, keys and state mounted") {
  const v1::SlurmCluster cluster = Cluster(2);
  const rapidjson::Document set = Parse(ControllerStatefulSetBody(
      {.cluster = &cluster, .munge_key_secret = "mk", .jwt_key_secret = "jk"}));
  CHECK(StringAt(set, {"metadata", "name"}) == "research-controller");
  CHECK(StringAt(set, {"metadata", "namespace"}) == "hpc");
  CHECK(StringAt(set, {"metadata", "ownerReferences", "0", "uid"}) == "uid-1");
  CHECK(IntAt(set, {"spec", "replicas"}) == 2);
  CHECK(StringAt(set, {"spec", "serviceName"}) == "research-controller");
  CHECK(StringAt(set, {"spec", "podManagementPolicy"}) == "Parallel");
  CHECK(StringAt(set, {"spec", "selector", "matchLabels", "tidepool.dev/component"}) ==
        "slurmctld");
  CHECK(StringAt(set, {"spec", "template", "metadata", "labels", "tidepool.dev/cluster"}) ==
        "research");
  const rapidjson::Value& pod = *At(set, {"spec", "template", "spec"});
  CHECK(StringAt(pod, {"containers", "0", "image"}) == "registry.example/slurmctld:26.05");
  CHECK(StringAt(pod, {"containers", "0", "args", "0"}) == "slurmctld");
  CHECK(IntAt(pod, {"containers", "0", "readinessProbe", "tcpSocket", "port"}) == 6817);
  CHECK(StringAt(pod, {"volumes", "0", "configMap", "name"}) == "research-slurm-config");
  CHECK(StringAt(pod, {"volumes", "1", "secret", "secretName"}) == "mk");
  CHECK(IntAt(pod, {"volumes", "1", "secret", "defaultMode"}) == 0400);
  CHECK(StringAt(pod, {"volumes", "2", "secret", "secretName"}) == "jk");
  CHECK(StringAt(pod, {"volumes", "3", "persistentVolumeClaim", "claimName"}) ==
        "research-controller-state");
  CHECK(StringAt(pod, {"containers", "0", "volumeMounts", "3", "mountPath"}) ==
        "/var/spool/slurmctld");
  // The login users' accounts: slurmctld refuses jobs of uids it cannot resolve.
  CHECK(StringAt(pod, {"volumes", "4", "configMap", "name"}) == "research-users");
  CHECK(At(pod, {"volumes", "4", "configMap", "optional"})->GetBool());
  CHECK(StringAt(pod, {"containers", "0", "volumeMounts", "4", "mountPath"}) ==
        "/etc/tidepool/users");
  CHECK(EnvValue(*At(pod, {"containers", "0"}), "TIDEPOOL_USERS_DIR") == "/etc/tidepool/users");
  CHECK(StringAt(pod, {"dnsConfig", "searches", "0"}) == "research-compute.hpc.svc.cluster.local");
  // No resources asked for, none written.
  CHECK(At(pod, {"containers", "0", "resources"}) == nullptr);
}

TEST_CASE("the controller's resources are passed through as given") {
  v1::SlurmCluster cluster = Cluster();
  REQUIRE(google::protobuf::util::JsonStringToMessage(
              R"({"requests":{"cpu":"2","memory":"8Gi"}})",
              cluster.mutable_spec()->mutable_controller()->mutable_resources())
              .ok());
  const rapidjson::Document set =
      Parse(ControllerStatefulSetBody({.cluster = &cluster, .munge_key_secret = "m"}));
  CHECK(StringAt(set, {"spec", "template", "spec", "containers", "0", "resources", "requests",
                       "memory"}) == "8Gi");
}

TEST_CASE("the headless Service publishes not-ready slurmctld pods; the PDB allows one down") {
  const rapidjson::Document service = Parse(ControllerServiceBody(Cluster()));
  CHECK(StringAt(service, {"spec", "clusterIP"}) == "None");
  CHECK(At(service, {"spec", "publishNotReadyAddresses"})->GetBool());
  CHECK(StringAt(service, {"spec", "selector", "tidepool.dev/component"}) == "slurmctld");
  CHECK(IntAt(service, {"spec", "ports", "0", "port"}) == 6817);
  const rapidjson::Document budget = Parse(ControllerDisruptionBudgetBody(Cluster()));
  CHECK(StringAt(budget, {"apiVersion"}) == "policy/v1");
  CHECK(IntAt(budget, {"spec", "maxUnavailable"}) == 1);
  CHECK(StringAt(budget, {"spec", "selector", "matchLabels", "tidepool.dev/cluster"}) ==
        "research");
}

TEST_CASE("the compute Service is the slurmd pods' headless subdomain") {
  const rapidjson::Document service = Parse(ComputeServiceBody(Cluster()));
  CHECK(StringAt(service, {"metadata", "name"}) == "research-compute");
  CHECK(StringAt(service, {"spec", "clusterIP"}) == "None");
  CHECK(At(service, {"spec", "publishNotReadyAddresses"})->GetBool());
  CHECK(StringAt(service, {"spec", "selector", "tidepool.dev/component"}) == "slurmd");
  CHECK(StringAt(service, {"spec", "selector", "tidepool.dev/cluster"}) == "research");
  CHECK(IntAt(service, {"spec", "ports", "0", "port"}) == 6818);
}

TEST_CASE("the compute PDB refuses evicting a Ready slurmd pod and allows a not-Ready one") {
  const rapidjson::Document budget = Parse(ComputeDisruptionBudgetBody(Cluster()));
  CHECK(StringAt(budget, {"kind"}) == "PodDisruptionBudget");
  CHECK(StringAt(budget, {"metadata", "name"}) == "research-compute");
  CHECK(IntAt(budget, {"spec", "minAvailable"}) == 2147483647);
  CHECK(At(budget, {"spec", "maxUnavailable"}) == nullptr);
  CHECK(StringAt(budget, {"spec", "unhealthyPodEvictionPolicy"}) == "AlwaysAllow");
  CHECK(StringAt(budget, {"spec", "selector", "matchLabels", "tidepool.dev/component"}) ==
        "slurmd");
  CHECK(StringAt(budget, {"spec", "selector", "matchLabels", "tidepool.dev/cluster"}) ==
        "research");
}

TEST_CASE("the state claim outlives the cluster and is shared when there is a backup") {
  v1::SlurmCluster single = Cluster(1);
  const rapidjson::Document claim = Parse(ControllerStateClaimBody(single));
  CHECK(StringAt(claim, {"metadata", "name"}) == "research-controller-state");
  CHECK(At(claim, {"metadata", "ownerReferences"}) == nullptr);
  CHECK(StringAt(claim, {"spec", "accessModes", "0"}) == "ReadWriteOnce");
  CHECK(StringAt(claim, {"spec", "resources", "requests", "storage"}) == "10Gi");
  CHECK(At(claim, {"spec", "storageClassName"}) == nullptr);

  v1::SlurmCluster pair = Cluster(2);
  pair.mutable_spec()->mutable_controller()->mutable_state_save()->set_storage_class_name("rwx");
  pair.mutable_spec()->mutable_controller()->mutable_state_save()->set_size("50Gi");
  const std::string shared = ControllerStateClaimBody(pair);
  const rapidjson::Document shared_claim = Parse(shared);
  CHECK(StringAt(shared_claim, {"spec", "accessModes", "0"}) == "ReadWriteMany");
  CHECK(StringAt(shared_claim, {"spec", "storageClassName"}) == "rwx");
  CHECK(StringAt(shared_claim, {"spec", "resources", "requests", "storage"}) == "50Gi");

  CHECK(CheckStateClaimFits(ControllerStateClaimBody(single), 1).ok());
  CHECK(CheckStateClaimFits(shared, 2).ok());
  const absl::Status unfit = CheckStateClaimFits(ControllerStateClaimBody(single), 2);
  CHECK(absl::IsFailedPrecondition(unfit));
  CHECK(absl::StrContains(unfit.message(), "research-controller-state"));
  CHECK(absl::StrContains(unfit.message(), "ReadWriteMany"));
}

TEST_CASE("a controller spec the builders cannot use is refused naming the field") {
  CHECK(ValidateControllerSpec(Cluster()).ok());
  struct Case {
    void (*mutate)(v1::SlurmCluster&);
    const char* field;
  };
  const Case cases[] = {
      {[](v1::SlurmCluster& c) { c.mutable_spec()->mutable_controller()->set_replicas(3); },
       "spec.controller.replicas"},
      {[](v1::SlurmCluster& c) { c.mutable_spec()->mutable_controller()->set_replicas(0); },
       "spec.controller.replicas"},
      {[](v1::SlurmCluster& c) { c.mutable_spec()->mutable_images()->clear_controller(); },
       "spec.images.controller"},
      {[](v1::SlurmCluster& c) {
         c.mutable_spec()->mutable_controller()->mutable_state_save()->set_size("lots");
       },
       "spec.controller.stateSave.size"},
      {[](v1::SlurmCluster& c) {
         c.mutable_spec()->mutable_controller()->mutable_state_save()->set_size("0");
       },
       "spec.controller.stateSave.size"},
      // Its pods' names would fit (50), its StatefulSet's revision label would not.
      {[](v1::SlurmCluster& c) { c.mutable_metadata()->set_name(std::string(42, 'a')); },
       "metadata.name"},
  };
  for (const Case& c : cases) {
    v1::SlurmCluster cluster = Cluster();
    c.mutate(cluster);
    const absl::Status status = ValidateControllerSpec(cluster);
    CAPTURE(c.field, status.ToString());
    CHECK(absl::IsInvalidArgument(status));
    CHECK(absl::StrContains(status.message(), c.field));
  }
}

TEST_CASE("a cluster name that just fits the slurmctld StatefulSet is accepted") {
  v1::SlurmCluster cluster = Cluster();
  cluster.mutable_metadata()->set_name(std::string(41, 'a'));  // aaa…-controller: 52
  CHECK(ValidateControllerSpec(cluster).ok());
  cluster.mutable_metadata()->set_name(std::string(42, 'a'));
  const absl::Status status = ValidateControllerSpec(cluster);
  CHECK(absl::StrContains(status.message(), "use a name of at most 41 characters"));
}

TEST_CASE("a StatefulSet's readiness is read from its status") {
  CHECK(ReadyReplicasOfStatefulSet(R"({"metadata":{"name":"s"},"spec":{"replicas":2},)"
                                   R"("status":{"readyReplicas":1}})") == 1);
  CHECK(ReadyReplicasOfStatefulSet(R"({"metadata":{"name":"s"},"spec":{"replicas":2}})") == 0);
  CHECK(ReadyReplicasOfStatefulSet("not json") == 0);
}

TEST_CASE("an applied body carries the hash of its content, which changes with it") {
  const v1::SlurmCluster one = Cluster(1);
  const v1::SlurmCluster two = Cluster(2);
  absl::StatusOr<std::string> a = StampAppliedHash(ControllerServiceBody(one));
  absl::StatusOr<std::string> b =
      StampAppliedHash(ControllerStatefulSetBody({.cluster = &one, .munge_key_secret = "m"}));
  absl::StatusOr<std::string> c =
      StampAppliedHash(ControllerStatefulSetBody({.cluster = &two, .munge_key_secret = "m"}));
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  REQUIRE(c.ok());
  CHECK(absl::StartsWith(AppliedHashOf(*a), "sha256:"));
  CHECK(AppliedHashOf(*b) != AppliedHashOf(*c));
  CHECK(AppliedHashOf(*a) == AppliedHashOf(*StampAppliedHash(ControllerServiceBody(one))));
  CHECK(AppliedHashOf(R"({"metadata":{"name":"x"}})").empty());
  CHECK_FALSE(StampAppliedHash("[1]").ok());
}

}  // namespace
}  // namespace tidepool::cluster

#include "login_builders.h"

#include <catch2/catch_test_macros.hpp>
#include <string>

#include "absl/strings/match.h"
#include "builder_test_support.h"

namespace tidepool::cluster {
namespace {

v1::SlurmCluster Cluster() {
  v1::SlurmCluster cluster = ResearchCluster();
  cluster.mutable_spec()->mutable_images()->set_login("registry.example/login:26.05");
  cluster.mutable_spec()->mutable_login()->set_ssh_keys_secret("research-ssh-keys");
  return cluster;
}

// The entry of `list` whose "name" is `name`, or nullptr.
const rapidjson::Value* Named(const rapidjson::Value& list, const std::string& name) {
  for (const rapidjson::Value& entry : list.GetArray()) {
    if (k8s::StringMember(entry, "name") == name) return &entry;
  }
  return nullptr;
}

std::string EnvOf(const rapidjson::Value& container, const std::string& name) {
  const rapidjson::Value* env = Named(*At(container, {"env"}), name);
  return env != nullptr ? k8s::StringMember(*env, "value") : "(unset)";
}

TEST_CASE("login pods run sshd with the config, the munge key, the host key and the users") {
  const v1::SlurmCluster cluster = Cluster();
  const rapidjson::Document deployment =
      Parse(LoginDeploymentBody({.cluster = &cluster, .munge_key_secret = "mk"}));
  CHECK(StringAt(deployment, {"kind"}) == "Deployment");
  CHECK(StringAt(deployment, {"metadata", "name"}) == "research-login");
  CHECK(StringAt(deployment, {"metadata", "ownerReferences", "0", "uid"}) == "uid-1");
  CHECK(IntAt(deployment, {"spec", "replicas"}) == 1);
  CHECK(StringAt(deployment, {"spec", "selector", "matchLabels", "tidepool.dev/component"}) ==
        "login");
  const rapidjson::Value& pod = *At(deployment, {"spec", "template", "spec"});
  const rapidjson::Value& sshd = *At(pod, {"containers", "0"});
  CHECK(StringAt(sshd, {"image"}) == "registry.example/login:26.05");
  CHECK(StringAt(sshd, {"args", "0"}) == "/usr/sbin/sshd");
  CHECK(IntAt(sshd, {"readinessProbe", "tcpSocket", "port"}) == 22);
  // What images/slurm/entrypoint reads.
  CHECK(EnvOf(sshd, "TIDEPOOL_SLURM_CONFIG_DIR") == "/etc/tidepool/slurm-config");
  CHECK(EnvOf(sshd, "TIDEPOOL_MUNGE_KEY") == "/etc/tidepool/munge/munge.key");
  CHECK(EnvOf(sshd, "TIDEPOOL_SSH_HOST_KEYS_DIR") == "/etc/tidepool/ssh-host-keys");
  CHECK(EnvOf(sshd, "TIDEPOOL_SSH_KEYS_DIR") == "/etc/tidepool/ssh-keys");
  CHECK(EnvOf(sshd, "TIDEPOOL_USERS_DIR") == "/etc/tidepool/users");

  const rapidjson::Value& volumes = *At(pod, {"volumes"});
  CHECK(StringAt(*Named(volumes, "config"), {"configMap", "name"}) == "research-slurm-config");
  CHECK(StringAt(*Named(volumes, "munge-key"), {"secret", "secretName"}) == "mk");
  CHECK(StringAt(*Named(volumes, "ssh-host-keys"), {"secret", "secretName"}) ==
        "research-login-host-keys");
  CHECK(IntAt(*Named(volumes, "ssh-host-keys"), {"secret", "defaultMode"}) == 0400);
  CHECK(StringAt(*Named(volumes, "ssh-keys"), {"secret", "secretName"}) == "research-ssh-keys");
  CHECK(StringAt(*Named(volumes, "users"), {"configMap", "name"}) == "research-users");
  CHECK(Named(volumes, "sssd") == nullptr);
  const rapidjson::Value& mounts = *At(sshd, {"volumeMounts"});
  for (const rapidjson::Value& mount : mounts.GetArray()) {
    CAPTURE(k8s::StringMember(mount, "name"));
    CHECK(k8s::BoolMember(mount, "readOnly"));
    CHECK(Named(volumes, k8s::StringMember(mount, "name")) != nullptr);
  }
  CHECK(StringAt(*Named(mounts, "users"), {"mountPath"}) == "/etc/tidepool/users");
}

TEST_CASE("with SSSD the login pods get sssd.conf at 0600 instead of the users ConfigMap") {
  v1::SlurmCluster cluster = Cluster();
  cluster.mutable_spec()->mutable_login()->set_sssd_config_secret("research-sssd");
  cluster.mutable_spec()->mutable_login()->set_replicas(3);
  const rapidjson::Document deployment = Parse(LoginDeploymentBody({.cluster = &cluster}));
  CHECK(IntAt(deployment, {"spec", "replicas"}) == 3);
  const rapidjson::Value& pod = *At(deployment, {"spec", "template", "spec"});
  const rapidjson::Value& volumes = *At(pod, {"volumes"});
  const rapidjson::Value* sssd = Named(volumes, "sssd");
  REQUIRE(sssd != nullptr);
  CHECK(StringAt(*sssd, {"secret", "secretName"}) == "research-sssd");
  CHECK(StringAt(*sssd, {"secret", "items", "0", "key"}) == "sssd.conf");
  CHECK(StringAt(*sssd, {"secret", "items", "0", "path"}) == "sssd.conf");
  CHECK(IntAt(*sssd, {"secret", "items", "0", "mode"}) == 0600);
  CHECK(Named(volumes, "users") == nullptr);
  const rapidjson::Value& sshd = *At(pod, {"containers", "0"});
  CHECK(StringAt(*Named(*At(sshd, {"volumeMounts"}), "sssd"), {"mountPath"}) == "/etc/sssd");
  CHECK(EnvOf(sshd, "TIDEPOOL_USERS_DIR") == "(unset)");
}

TEST_CASE("the login Service is of the spec's type on port 22, ClusterIP by default") {
  v1::SlurmCluster cluster = Cluster();
  rapidjson::Document service = Parse(LoginServiceBody(cluster));
  CHECK(StringAt(service, {"metadata", "name"}) == "research-login");
  CHECK(StringAt(service, {"spec", "type"}) == "ClusterIP");
  CHECK(StringAt(service, {"spec", "selector", "tidepool.dev/component"}) == "login");
  CHECK(StringAt(service, {"spec", "selector", "tidepool.dev/cluster"}) == "research");
  CHECK(IntAt(service, {"spec", "ports", "0", "port"}) == 22);
  cluster.mutable_spec()->mutable_login()->set_service_type("LoadBalancer");
  service = Parse(LoginServiceBody(cluster));
  CHECK(StringAt(service, {"spec", "type"}) == "LoadBalancer");
}

TEST_CASE("login pods are wanted when spec.login asks for at least one") {
  v1::SlurmCluster cluster = ResearchCluster();
  CHECK_FALSE(LoginWanted(cluster));
  cluster.mutable_spec()->mutable_login();
  CHECK(LoginWanted(cluster));  // replicas default to 1
  cluster.mutable_spec()->mutable_login()->set_replicas(0);
  CHECK_FALSE(LoginWanted(cluster));
  cluster.mutable_spec()->mutable_login()->set_replicas(101);
  CHECK(LoginWanted(cluster));  // so that Validate says what is wrong
}

TEST_CASE("a login spec the builders cannot use is refused naming the field") {
  CHECK(ValidateLoginSpec(Cluster()).ok());
  for (const char* type : {"ClusterIP", "NodePort", "LoadBalancer"}) {
    v1::SlurmCluster cluster = Cluster();
    cluster.mutable_spec()->mutable_login()->set_service_type(type);
    CHECK(ValidateLoginSpec(cluster).ok());
  }
  SECTION("serviceType") {
    v1::SlurmCluster cluster = Cluster();
    cluster.mutable_spec()->mutable_login()->set_service_type("ExternalName");
    const absl::Status status = ValidateLoginSpec(cluster);
    CHECK(absl::IsInvalidArgument(status));
    CHECK(absl::StrContains(status.message(), "spec.login.serviceType"));
  }
  SECTION("images.login") {
    v1::SlurmCluster cluster = Cluster();
    cluster.mutable_spec()->mutable_images()->clear_login();
    CHECK(absl::StrContains(ValidateLoginSpec(cluster).message(), "spec.images.login"));
  }
  SECTION("sshKeysSecret") {
    v1::SlurmCluster cluster = Cluster();
    cluster.mutable_spec()->mutable_login()->clear_ssh_keys_secret();
    CHECK(absl::StrContains(ValidateLoginSpec(cluster).message(), "spec.login.sshKeysSecret"));
  }
  SECTION("replicas") {
    v1::SlurmCluster cluster = Cluster();
    cluster.mutable_spec()->mutable_login()->set_replicas(101);
    CHECK(absl::StrContains(ValidateLoginSpec(cluster).message(), "spec.login.replicas"));
  }
}

}  // namespace
}  // namespace tidepool::cluster

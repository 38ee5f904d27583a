#include "login_builders.h"

#include "absl/strings/str_cat.h"
#include "k8s/object_json.h"
#include "manifest_writing.h"
#include "owned_metadata.h"
#include "tidepool/contract.h"
#include "tidepool/naming.h"

namespace tidepool::cluster {
namespace {

using k8s::JsonWriter;

constexpr int kMaxLoginReplicas = 100;
// sssd refuses an sssd.conf that anyone but root can read.
constexpr int kSssdConfigMode = 0600;

bool HasSssd(const v1::SlurmCluster& cluster) {
  return !cluster.spec().login().sssd_config_secret().empty();
}

void WriteSshdContainer(JsonWriter& w, const v1::SlurmCluster& cluster) {
  // Spelled out rather than the image's CMD: the entrypoint installs the host key for it.
  StartContainer(w, "sshd", cluster.spec().images().login(), {"/usr/sbin/sshd", "-D", "-e"});
  const std::string munge_key = absl::StrCat(kMungeKeyMountPath, "/", api::kMungeKeyFile);
  if (HasSssd(cluster)) {
    WriteEnv(w, {{"TIDEPOOL_SLURM_CONFIG_DIR", kSlurmConfigMountPath},
                 {"TIDEPOOL_MUNGE_KEY", munge_key},
                 {"TIDEPOOL_SSH_HOST_KEYS_DIR", kSshHostKeysMountPath},
                 {"TIDEPOOL_SSH_KEYS_DIR", kSshKeysMountPath}});
  } else {
    WriteEnv(w, {{"TIDEPOOL_SLURM_CONFIG_DIR", kSlurmConfigMountPath},
                 {"TIDEPOOL_MUNGE_KEY", munge_key},
                 {"TIDEPOOL_SSH_HOST_KEYS_DIR", kSshHostKeysMountPath},
                 {"TIDEPOOL_SSH_KEYS_DIR", kSshKeysMountPath},
                 {kUsersDirEnv, kUsersMountPath}});
  }
  WriteServedPort(w, "ssh", api::kSshPort);
  w.Key("volumeMounts");
  w.StartArray();
  WriteMount(w, "config", kSlurmConfigMountPath, true);
  WriteMount(w, "munge-key", kMungeKeyMountPath, true);
  WriteMount(w, "ssh-host-keys", kSshHostKeysMountPath, true);
  WriteMount(w, "ssh-keys", kSshKeysMountPath, true);
  if (HasSssd(cluster)) {
    WriteMount(w, "sssd", kSssdConfigMountPath, true);
  } else {
    WriteMount(w, "users", kUsersMountPath, true);
  }
  w.EndArray();
  w.EndObject();
}

// The sssdConfigSecret's sssd.conf alone, at the mode sssd insists on.
void WriteSssdVolume(JsonWriter& w, const v1::SlurmCluster& cluster) {
  w.StartObject();
  k8s::WriteStringMember(w, "name", "sssd");
  w.Key("secret");
  w.StartObject();
  k8s::WriteStringMember(w, "secretName", cluster.spec().login().sssd_config_secret());
  w.Key("items");
  w.StartArray();
  w.StartObject();
  k8s::WriteStringMember(w, "key", kSssdConfigFile);
  k8s::WriteStringMember(w, "path", kSssdConfigFile);
  w.Key("mode");
  w.Int(kSssdConfigMode);
  w.EndObject();
  w.EndArray();
  w.EndObject();
  w.EndObject();
}

}  // namespace

absl::StatusOr<int> LoginReplicas(const v1::SlurmCluster& cluster) {
  const v1::LoginSpec& spec = cluster.spec().login();
  const int replicas = spec.has_replicas() ? spec.replicas() : 1;
  if (replicas < 0 || replicas > kMaxLoginReplicas) {
    return absl::InvalidArgumentError(
        absl::StrCat("spec.login.replicas is ", replicas, "; use 0 to ", kMaxLoginReplicas));
  }
  return replicas;
}

bool LoginWanted(const v1::SlurmCluster& cluster) {
  if (!cluster.spec().has_login()) return false;
  // A replica count out of range is wanted, so that Validate says what is wrong with it.
  absl::StatusOr<int> replicas = LoginReplicas(cluster);
  return !replicas.ok() || *replicas >= 1;
}

std::string LoginServiceType(const v1::SlurmCluster& cluster) {
  const std::string& type = cluster.spec().login().service_type();
  return type.empty() ? "ClusterIP" : type;
}

absl::Status ValidateLoginSpec(const v1::SlurmCluster& cluster) {
  if (absl::StatusOr<int> replicas = LoginReplicas(cluster); !replicas.ok()) {
    return replicas.status();
  }
  if (cluster.spec().images().login().empty()) {
    return absl::InvalidArgumentError(
        "spec.images.login is empty; name the login image (sshd and the Slurm clients)");
  }
  const std::string type = LoginServiceType(cluster);
  if (type != "ClusterIP" && type != "NodePort" && type != "LoadBalancer") {
    return absl::InvalidArgumentError(absl::StrCat("spec.login.serviceType is \"", type,
                                                   "\"; use ClusterIP, NodePort or LoadBalancer"));
  }
  if (cluster.spec().login().ssh_keys_secret().empty()) {
    return absl::InvalidArgumentError(
        "spec.login.sshKeysSecret is empty; name the Secret whose keys are the user names "
        "and whose values are their authorized_keys");
  }
  return absl::OkStatus();
}

std::string LoginDeploymentBody(const LoginInputs& inputs) {
  const v1::SlurmCluster& cluster = *inputs.cluster;
  return DeploymentBody(
      cluster,
      {.name = api::LoginName(cluster.metadata().name()),
       .component = api::kLoginComponent,
       .replicas = LoginReplicas(cluster).value_or(1)},
      [&](JsonWriter& w) {
        w.Key("containers");
        w.StartArray();
        WriteSshdContainer(w, cluster);
        w.EndArray();
        w.Key("volumes");
        w.StartArray();
        WriteConfigVolume(w, cluster);
        WriteSecretVolume(w, "munge-key", inputs.munge_key_secret);
        WriteSecretVolume(w, "ssh-host-keys",
                          api::LoginHostKeysSecretName(cluster.metadata().name()));
        WriteSecretVolume(w, "ssh-keys", cluster.spec().login().ssh_keys_secret());
        if (HasSssd(cluster)) {
          WriteSssdVolume(w, cluster);
        } else {
          WriteUsersVolume(w, cluster);
        }
        w.EndArray();
      });
}

std::string LoginServiceBody(const v1::SlurmCluster& cluster) {
  return JsonObject([&](JsonWriter& w) {
    WriteTypeMeta(w, "v1", "Service");
    WriteOwnedMetadata(w, cluster, api::LoginName(cluster.metadata().name()), api::kLoginComponent);
    w.Key("spec");
    w.StartObject();
    k8s::WriteStringMember(w, "type", LoginServiceType(cluster));
    // A user's next connection reaches the same pod, with the files left in its home.
    k8s::WriteStringMember(w, "sessionAffinity", "ClientIP");
    WriteServiceSelectorAndPort(w, cluster, api::kLoginComponent, "ssh", api::kSshPort);
    w.EndObject();
  });
}

}  // namespace tidepool::cluster

#include "cluster_wiring.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "k8s/object_json.h"
#include "tidepool/contract.h"
#include "tidepool/naming.h"

namespace tidepool::nodeset {
namespace {

using Allocator = rapidjson::Document::AllocatorType;

// The Secret's files readable by root only: the entrypoint (root) copies the key for munged.
constexpr int kMungeKeyMode = 0400;
// slurmd executes the scripts; nothing in them is secret.
constexpr int kScriptMode = 0755;

// object[key] as an array, created empty when missing or not an array.
rapidjson::Value& ArrayMember(rapidjson::Value& object, const char* key, Allocator& a) {
  auto it = object.FindMember(key);
  if (it == object.MemberEnd() || !it->value.IsArray()) {
    k8s::SetMember(object, key, rapidjson::Value(rapidjson::kArrayType), a);
  }
  return object[key];
}

// Whether an element of `list` (an array of objects) has `field` == `value`.
bool HasEntry(const rapidjson::Value* list, const char* field, absl::string_view value) {
  if (list == nullptr || !list->IsArray()) return false;
  for (const rapidjson::Value& entry : list->GetArray()) {
    if (k8s::StringMember(entry, field) == value) return true;
  }
  return false;
}

rapidjson::Value String(absl::string_view value, Allocator& a) {
  return rapidjson::Value(value.data(), static_cast<rapidjson::SizeType>(value.size()), a);
}

rapidjson::Value ConfigVolume(const ClusterWiring& wiring, Allocator& a) {
  rapidjson::Value config_map(rapidjson::kObjectType);
  k8s::SetStringMember(config_map, "name", api::SlurmConfigMapName(wiring.cluster), a);
  rapidjson::Value volume(rapidjson::kObjectType);
  k8s::SetStringMember(volume, "name", kSlurmConfigVolume, a);
  volume.AddMember("configMap", config_map, a);
  return volume;
}

rapidjson::Value MungeKeyVolume(const ClusterWiring& wiring, Allocator& a) {
  rapidjson::Value secret(rapidjson::kObjectType);
  k8s::SetStringMember(secret, "secretName", wiring.munge_key_secret, a);
  secret.AddMember("defaultMode", kMungeKeyMode, a);
  rapidjson::Value volume(rapidjson::kObjectType);
  k8s::SetStringMember(volume, "name", kMungeKeyVolume, a);
  volume.AddMember("secret", secret, a);
  return volume;
}

// The login users' accounts: optional, there are none without login users (or with SSSD).
rapidjson::Value UsersVolume(const ClusterWiring& wiring, Allocator& a) {
  rapidjson::Value config_map(rapidjson::kObjectType);
  k8s::SetStringMember(config_map, "name", api::UsersConfigMapName(wiring.cluster), a);
  config_map.AddMember("optional", true, a);
  rapidjson::Value volume(rapidjson::kObjectType);
  k8s::SetStringMember(volume, "name", kUsersVolume, a);
  volume.AddMember("configMap", config_map, a);
  return volume;
}

rapidjson::Value ScriptsVolume(absl::string_view volume_name, absl::string_view config_map,
                               Allocator& a) {
  rapidjson::Value source(rapidjson::kObjectType);
  k8s::SetStringMember(source, "name", config_map, a);
  source.AddMember("defaultMode", kScriptMode, a);
  rapidjson::Value volume(rapidjson::kObjectType);
  k8s::SetStringMember(volume, "name", volume_name, a);
  volume.AddMember("configMap", source, a);
  return volume;
}

// Both runner files of the slurm-config ConfigMap, whether the cluster has scripts now or
// not (an optional volume skips the keys the ConfigMap lacks).
rapidjson::Value HookRunnersVolume(const ClusterWiring& wiring, Allocator& a) {
  rapidjson::Value items(rapidjson::kArrayType);
  auto add = [&](const char* file) {
    rapidjson::Value item(rapidjson::kObjectType);
    k8s::SetStringMember(item, "key", file, a);
    k8s::SetStringMember(item, "path", file, a);
    item.AddMember("mode", kScriptMode, a);
    items.PushBack(item, a);
  };
  add(api::kPrologRunnerFile);
  add(api::kEpilogRunnerFile);
  rapidjson::Value source(rapidjson::kObjectType);
  k8s::SetStringMember(source, "name", api::SlurmConfigMapName(wiring.cluster), a);
  source.AddMember("items", items, a);
  source.AddMember("optional", true, a);
  rapidjson::Value volume(rapidjson::kObjectType);
  k8s::SetStringMember(volume, "name", kHookRunnersVolume, a);
  volume.AddMember("configMap", source, a);
  return volume;
}

rapidjson::Value ReadOnlyMount(absl::string_view volume, absl::string_view path, Allocator& a) {
  rapidjson::Value mount(rapidjson::kObjectType);
  mount.AddMember("name", String(volume, a), a);
  mount.AddMember("mountPath", String(path, a), a);
  mount.AddMember("readOnly", true, a);
  return mount;
}

rapidjson::Value EnvVar(absl::string_view name, absl::string_view value, Allocator& a) {
  rapidjson::Value env(rapidjson::kObjectType);
  env.AddMember("name", String(name, a), a);
  env.AddMember("value", String(value, a), a);
  return env;
}

// The template's own setting of a variable wins: the user may point elsewhere on purpose.
void AddEnvUnlessSet(rapidjson::Value& env, absl::string_view name, absl::string_view value,
                     Allocator& a) {
  if (!HasEntry(&env, "name", name)) env.PushBack(EnvVar(name, value, a), a);
}

// The template's search domains stay first: they are the user's choice of what a short
// name means; a repeat of ours would only count against the API's limit on searches.
void AppendUnlessListed(rapidjson::Value& strings, absl::string_view value, Allocator& a) {
  for (const rapidjson::Value& listed : strings.GetArray()) {
    if (listed.IsString() && absl::string_view(listed.GetString()) == value) return;
  }
  strings.PushBack(String(value, a), a);
}

}  // namespace

absl::Status AddClusterVolumes(const ClusterWiring& wiring, rapidjson::Value& pod_spec,
                               Allocator& allocator) {
  const rapidjson::Value* volumes = k8s::FindMember(pod_spec, "volumes");
  for (const char* name : {kSlurmConfigVolume, kMungeKeyVolume, kUsersVolume}) {
    if (HasEntry(volumes, "name", name)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "spec.template.spec.volumes: the volume name \"", name,
          "\" is reserved for the cluster's Slurm configuration, munge key and users"));
    }
  }
  rapidjson::Value& list = ArrayMember(pod_spec, "volumes", allocator);
  list.PushBack(ConfigVolume(wiring, allocator), allocator);
  list.PushBack(MungeKeyVolume(wiring, allocator), allocator);
  list.PushBack(UsersVolume(wiring, allocator), allocator);
  return absl::OkStatus();
}

absl::Status MountClusterFiles(rapidjson::Value& slurmd, Allocator& allocator) {
  const rapidjson::Value* mounts = k8s::FindMember(slurmd, "volumeMounts");
  for (const char* path : {kSlurmConfigMountPath, kMungeKeyMountPath, kUsersMountPath}) {
    if (HasEntry(mounts, "mountPath", path)) {
      return absl::InvalidArgumentError(
          absl::StrCat("spec.template.spec.containers[slurmd].volumeMounts: the path ", path,
                       " is reserved for the cluster's Slurm configuration, munge key and users"));
    }
  }
  rapidjson::Value& list = ArrayMember(slurmd, "volumeMounts", allocator);
  list.PushBack(ReadOnlyMount(kSlurmConfigVolume, kSlurmConfigMountPath, allocator), allocator);
  list.PushBack(ReadOnlyMount(kMungeKeyVolume, kMungeKeyMountPath, allocator), allocator);
  list.PushBack(ReadOnlyMount(kUsersVolume, kUsersMountPath, allocator), allocator);
  rapidjson::Value& env = ArrayMember(slurmd, "env", allocator);
  AddEnvUnlessSet(env, kSlurmConfigDirEnv, kSlurmConfigMountPath, allocator);
  AddEnvUnlessSet(env, kMungeKeyEnv, absl::StrCat(kMungeKeyMountPath, "/", api::kMungeKeyFile),
                  allocator);
  AddEnvUnlessSet(env, kUsersDirEnv, kUsersMountPath, allocator);
  return absl::OkStatus();
}

absl::Status AddScripts(const ClusterWiring& wiring, rapidjson::Value& pod_spec,
                        rapidjson::Value& slurmd, Allocator& allocator) {
  struct Scripts {
    const char* field;
    const std::string& config_map;
    const char* volume;
    const char* path;
  };
  const Scripts all[] = {{"prolog", wiring.prolog_config_map, kPrologVolume, kPrologMountPath},
                         {"epilog", wiring.epilog_config_map, kEpilogVolume, kEpilogMountPath}};
  // Every check before any change: a refused template leaves the pod spec as it was.
  for (const Scripts& scripts : all) {
    if (scripts.config_map.empty()) continue;
    if (HasEntry(k8s::FindMember(pod_spec, "volumes"), "name", scripts.volume)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "spec.template.spec.volumes: the volume name \"", scripts.volume,
          "\" is reserved for the SlurmCluster's spec.", scripts.field, ".configMap scripts"));
    }
    if (HasEntry(k8s::FindMember(slurmd, "volumeMounts"), "mountPath", scripts.path)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "spec.template.spec.containers[slurmd].volumeMounts: the path ", scripts.path,
          " is reserved for the SlurmCluster's spec.", scripts.field, ".configMap scripts"));
    }
  }
  if (HasEntry(k8s::FindMember(pod_spec, "volumes"), "name", kHookRunnersVolume) ||
      HasEntry(k8s::FindMember(slurmd, "volumeMounts"), "mountPath", api::kHookRunnerDir)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "spec.template.spec: the volume name \"", kHookRunnersVolume, "\" and the path ",
        api::kHookRunnerDir, " are reserved for the SlurmCluster's prolog/epilog runners"));
  }
  for (const Scripts& scripts : all) {
    if (scripts.config_map.empty()) continue;
    ArrayMember(pod_spec, "volumes", allocator)
        .PushBack(ScriptsVolume(scripts.volume, scripts.config_map, allocator), allocator);
    ArrayMember(slurmd, "volumeMounts", allocator)
        .PushBack(ReadOnlyMount(scripts.volume, scripts.path, allocator), allocator);
  }
  ArrayMember(pod_spec, "volumes", allocator)
      .PushBack(HookRunnersVolume(wiring, allocator), allocator);
  ArrayMember(slurmd, "volumeMounts", allocator)
      .PushBack(ReadOnlyMount(kHookRunnersVolume, api::kHookRunnerDir, allocator), allocator);
  return absl::OkStatus();
}

void AddComputeDns(const ClusterWiring& wiring, rapidjson::Value& pod_spec, Allocator& allocator) {
  // Ours even over the template's: the pod's DNS name, which Slurm relies on, needs it.
  k8s::SetStringMember(pod_spec, "subdomain", api::ComputeServiceName(wiring.cluster), allocator);
  rapidjson::Value& searches =
      ArrayMember(k8s::ObjectMember(pod_spec, "dnsConfig", allocator), "searches", allocator);
  AppendUnlessListed(searches,
                     api::ComputeSearchDomain(wiring.cluster, wiring.ns, wiring.cluster_domain),
                     allocator);
  if (k8s::BoolMember(pod_spec, "hostNetwork") &&
      k8s::FindMember(pod_spec, "dnsPolicy") == nullptr) {
    k8s::SetStringMember(pod_spec, "dnsPolicy", "ClusterFirstWithHostNet", allocator);
  }
}

}  // namespace tidepool::nodeset

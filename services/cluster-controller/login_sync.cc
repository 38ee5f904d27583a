#include "login_sync.h"

#include <map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "applied_hash.h"
#include "common/log.h"
#include "generated_secret.h"
#include "k8s/resource.h"
#include "login_builders.h"
#include "login_users.h"
#include "ssh_host_keys.h"
#include "tidepool/contract.h"
#include "tidepool/naming.h"

namespace tidepool::cluster {

LoginStep::LoginStep(k8s::Client& client, ClusterInformers informers, k8s::EventRecorder& events,
                     std::string field_manager)
    : ComponentStep(client, events, field_manager),
      informers_(informers),
      field_manager_(field_manager),
      users_applier_(client, std::move(field_manager)) {}

const char* LoginStep::component() const { return api::kLoginComponent; }
const char* LoginStep::applied_reason() const { return api::kLoginAppliedReason; }

bool LoginStep::Wanted(const v1::SlurmCluster& spec) const { return LoginWanted(spec); }

absl::Status LoginStep::Validate(const v1::SlurmCluster& spec) const {
  return ValidateLoginSpec(spec);
}

std::vector<OwnedName> LoginStep::Owns(const v1::SlurmCluster& spec) const {
  const std::string name = api::LoginName(spec.metadata().name());
  // Not the users ConfigMap: slurmctld mounts it too.
  return {{&k8s::Services(), informers_.services, name},
          {&k8s::Deployments(), informers_.deployments, name}};
}

absl::StatusOr<SecretVerdict> LoginStep::EnsureHostKeySecret(const v1::SlurmCluster& spec) {
  const std::string& ns = spec.metadata().namespace_();
  const std::string name = api::LoginHostKeysSecretName(spec.metadata().name());
  absl::StatusOr<GeneratedSecretResult> secret = EnsureGeneratedSecret(
      client(), field_manager_, ns, name,
      {.make_body = [&]() -> absl::StatusOr<std::string> {
         absl::StatusOr<std::string> key = GenerateSshHostKey();
         if (!key.ok()) return key.status();
         return SshHostKeySecretBody(spec, *key);
       },
       .check = [&](absl::string_view json) { return CheckSshHostKeySecret(spec, json); }});
  if (!secret.ok()) return secret.status();
  if (secret->created) {
    common::LogInfo("login_host_key_created",
                    {{"cluster", absl::StrCat(ns, "/", spec.metadata().name())}, {"secret", name}});
  }
  return secret->verdict;
}

absl::StatusOr<std::string> LoginStep::UsersConfigMap(const v1::SlurmCluster& spec,
                                                      const std::vector<std::string>& users) {
  // Read from the API server, not the cache: ids must never be handed out twice.
  absl::StatusOr<std::string> existing =
      client().Get(k8s::ConfigMaps(), spec.metadata().namespace_(),
                   api::UsersConfigMapName(spec.metadata().name()));
  if (!existing.ok() && !absl::IsNotFound(existing.status())) return existing.status();
  const std::map<std::string, int> assigned =
      existing.ok() ? AssignedIds(*existing) : std::map<std::string, int>();
  return UsersConfigMapBody(spec, AssignIds(users, assigned));
}

absl::Status LoginStep::ApplyUsers(const v1::SlurmCluster& spec,
                                   const std::vector<std::string>& users) {
  absl::StatusOr<std::string> body = UsersConfigMap(spec, users);
  if (!body.ok()) return body.status();
  const std::string& ns = spec.metadata().namespace_();
  absl::StatusOr<bool> wrote =
      users_applier_.Apply(k8s::ConfigMaps(), *informers_.config_maps, ns,
                           api::UsersConfigMapName(spec.metadata().name()), *body);
  if (!wrote.ok()) return wrote.status();
  if (!*wrote) return absl::OkStatus();
  absl::StatusOr<std::string> stamped = StampAppliedHash(*body);
  if (!stamped.ok()) return stamped.status();
  common::LogInfo("login_users_applied",
                  {{"cluster", absl::StrCat(ns, "/", spec.metadata().name())},
                   {"users", static_cast<int64_t>(users.size())}});
  NudgeUserPods(spec, AppliedHashOf(*stamped));
  return absl::OkStatus();
}

void LoginStep::NudgeUserPods(const v1::SlurmCluster& spec, absl::string_view users_hash) {
  const std::string& ns = spec.metadata().namespace_();
  const std::string cluster = absl::StrCat(ns, "/", spec.metadata().name());
  absl::StatusOr<k8s::ListResult> pods =
      client().List(k8s::Pods(), ns,
                    {.label_selector = absl::StrCat(
                         api::kClusterLabel, "=", spec.metadata().name(), ",", api::kComponentLabel,
                         " in (", api::kSlurmctldComponent, ",", api::kLoginComponent, ")")});
  if (!pods.ok()) {
    common::LogWarn("login_users_nudge_failed", {{"cluster", cluster}, {"error", pods.status()}});
    return;
  }
  const std::string patch = UsersHashAnnotationPatch(users_hash);
  for (const std::string& pod : pods->items) {
    absl::StatusOr<k8s::ObjectMeta> meta = k8s::ParseObjectMeta(pod);
    if (!meta.ok()) continue;
    absl::Status patched =
        client()
            .MergePatch(k8s::Pods(), ns, meta->name, patch, {.field_manager = field_manager_})
            .status();
    if (!patched.ok() && !absl::IsNotFound(patched)) {
      common::LogWarn("login_users_nudge_failed",
                      {{"cluster", cluster}, {"pod", meta->name}, {"error", patched}});
    }
  }
}

absl::StatusOr<ComponentPlan> LoginStep::Plan(const v1::SlurmCluster& spec,
                                              const ClusterOutcome& outcome) {
  const std::string& ns = spec.metadata().namespace_();
  absl::StatusOr<std::string> keys =
      client().Get(k8s::Secrets(), ns, spec.spec().login().ssh_keys_secret());
  if (absl::IsNotFound(keys.status())) {
    return Blocked(api::kLoginUsersInvalidReason, MissingSshKeysSecret(spec), kSecretRecheck);
  }
  if (!keys.ok()) return keys.status();
  SshKeysRead users = ReadSshKeysSecret(spec, *keys);
  if (!users.problem.empty()) {
    return Blocked(api::kLoginUsersInvalidReason, std::move(users.problem), kSecretRecheck);
  }
  // Only for a usable users' Secret: a spec that cannot work yet leaves nothing behind.
  absl::StatusOr<SecretVerdict> host_key = EnsureHostKeySecret(spec);
  if (!host_key.ok()) return host_key.status();
  if (!host_key->usable) {
    return Blocked(api::kHostKeysInvalidReason, std::move(host_key->problem), kSecretRecheck);
  }

  const std::string name = api::LoginName(spec.metadata().name());
  ComponentPlan plan{.replicas = *LoginReplicas(spec),
                     .workload_cache = informers_.deployments,
                     .workload_name = name,
                     .ready_replicas_of = &AvailableReplicasOfDeployment,
                     .description = absl::StrCat("login Deployment ", name),
                     .recheck_after = kSecretRecheck};
  // The accounts first: the pods mount them.
  if (spec.spec().login().sssd_config_secret().empty()) {
    if (absl::Status applied = ApplyUsers(spec, users.users); !applied.ok()) return applied;
  }
  plan.objects.push_back({&k8s::Services(), informers_.services, name, LoginServiceBody(spec)});
  plan.objects.push_back(
      {&k8s::Deployments(), informers_.deployments, name,
       LoginDeploymentBody({.cluster = &spec, .munge_key_secret = outcome.auth.munge_key_secret})});
  return plan;
}

}  // namespace tidepool::cluster

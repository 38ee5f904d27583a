#include "accounting_sync.h"

#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "accounting_builders.h"
#include "common/log.h"
#include "generated_secret.h"
#include "k8s/resource.h"
#include "random_bytes.h"
#include "tidepool/contract.h"
#include "tidepool/naming.h"

namespace tidepool::cluster {
namespace {

constexpr char kCredentialsInvalidReason[] = "AccountingCredentialsInvalid";
constexpr char kWaitingForDatabaseReason[] = "WaitingForDatabase";
// Hex of this many random bytes: no character that needs quoting in SQL or slurmdbd.conf.
constexpr size_t kPasswordBytes = 24;

}  // namespace

AccountingDatabaseStep::AccountingDatabaseStep(k8s::Client& client, ClusterInformers informers,
                                               k8s::EventRecorder& events,
                                               std::string field_manager)
    : ComponentStep(client, events, field_manager),
      informers_(informers),
      field_manager_(std::move(field_manager)) {}

const char* AccountingDatabaseStep::component() const { return api::kAccountingDatabaseComponent; }
const char* AccountingDatabaseStep::applied_reason() const { return api::kAccountingAppliedReason; }
bool AccountingDatabaseStep::Wanted(const v1::SlurmCluster& spec) const {
  return ManagedDatabaseWanted(spec);
}
absl::Status AccountingDatabaseStep::Validate(const v1::SlurmCluster& spec) const {
  return ValidateManagedDatabaseSpec(spec);
}

std::vector<OwnedName> AccountingDatabaseStep::Owns(const v1::SlurmCluster& spec) const {
  const std::string name = api::AccountingDatabaseName(spec.metadata().name());
  // Not the credentials Secret nor the data claim: a re-enabled database finds its data
  // and the password that opens it.
  return {{&k8s::Services(), informers_.services, name},
          {&k8s::StatefulSets(), informers_.stateful_sets, name}};
}

absl::StatusOr<SecretVerdict> AccountingDatabaseStep::EnsureCredentials(
    const v1::SlurmCluster& spec) {
  const std::string& ns = spec.metadata().namespace_();
  const std::string name = api::AccountingCredentialsSecretName(spec.metadata().name());
  absl::StatusOr<GeneratedSecretResult> secret = EnsureGeneratedSecret(
      client(), field_manager_, ns, name,
      {.make_body = [&]() -> absl::StatusOr<std::string> {
         absl::StatusOr<std::string> password = RandomBytes(kPasswordBytes);
         if (!password.ok()) return password.status();
         return AccountingCredentialsSecretBody(spec, absl::BytesToHexString(*password));
       },
       .check =
           [&](absl::string_view json) { return CheckGeneratedCredentialsSecret(spec, json); }});
  if (!secret.ok()) return secret.status();
  if (secret->created) {
    common::LogInfo("accounting_credentials_created", {{"namespace", ns}, {"secret", name}});
  }
  return secret->verdict;
}

absl::StatusOr<ComponentPlan> AccountingDatabaseStep::Plan(const v1::SlurmCluster& spec,
                                                           const ClusterOutcome& /*outcome*/) {
  absl::StatusOr<SecretVerdict> credentials = EnsureCredentials(spec);
  if (!credentials.ok()) return credentials.status();
  if (!credentials->usable) {
    return Blocked(kCredentialsInvalidReason, std::move(credentials->problem), kSecretRecheck);
  }
  const std::string name = api::AccountingDatabaseName(spec.metadata().name());
  const std::string& ns = spec.metadata().namespace_();
  std::optional<ClaimSpec> created_with;
  if (k8s::CachedObjectPtr set = informers_.stateful_sets->Get(absl::StrCat(ns, "/", name))) {
    created_with = DataClaimTemplateOf(set->json);
  }
  return ComponentPlan{.objects = {{&k8s::Services(), informers_.services, name,
                                    AccountingDatabaseServiceBody(spec)},
                                   {&k8s::StatefulSets(), informers_.stateful_sets, name,
                                    AccountingDatabaseStatefulSetBody(spec, created_with)}},
                       .replicas = 1,
                       .workload_cache = informers_.stateful_sets,
                       .workload_name = name,
                       .ready_replicas_of = &ReadyReplicasOfStatefulSet,
                       .description = absl::StrCat("accounting database StatefulSet ", name)};
}

std::vector<DataClaim> AccountingDatabaseStep::DataClaims(const v1::SlurmCluster& spec) const {
  return {{.wanted = WantedDataClaim(spec), .cache = informers_.claims}};
}

AccountingStep::AccountingStep(k8s::Client& client, ClusterInformers informers,
                               k8s::EventRecorder& events, std::string field_manager)
    : ComponentStep(client, events, std::move(field_manager)), informers_(informers) {}

const char* AccountingStep::component() const { return api::kSlurmdbdComponent; }
const char* AccountingStep::applied_reason() const { return api::kAccountingAppliedReason; }
bool AccountingStep::Wanted(const v1::SlurmCluster& spec) const { return AccountingWanted(spec); }
absl::Status AccountingStep::Validate(const v1::SlurmCluster& spec) const {
  return ValidateAccountingSpec(spec);
}

std::vector<OwnedName> AccountingStep::Owns(const v1::SlurmCluster& spec) const {
  const std::string name = api::AccountingName(spec.metadata().name());
  return {{&k8s::Services(), informers_.services, name},
          {&k8s::Deployments(), informers_.deployments, name}};
}

absl::StatusOr<ComponentPlan> AccountingStep::Plan(const v1::SlurmCluster& spec,
                                                   const ClusterOutcome& outcome) {
  const AccountingDatabase database = AccountingDatabaseOf(spec);
  if (database.managed && !outcome.accounting_database.applied) {
    return Blocked(outcome.accounting_database.blocked_reason.empty()
                       ? kWaitingForDatabaseReason
                       : outcome.accounting_database.blocked_reason,
                   absl::StrCat("slurmdbd waits for the accounting database: ",
                                outcome.accounting_database.error));
  }
  absl::StatusOr<std::string> secret =
      client().Get(k8s::Secrets(), spec.metadata().namespace_(), database.credentials_secret);
  if (absl::IsNotFound(secret.status())) {
    return Blocked(
        kCredentialsInvalidReason,
        absl::StrCat("Secret \"", database.credentials_secret, "\"",
                     database.managed ? "" : " (spec.accounting.external.credentialsSecret)",
                     " does not exist in namespace \"", spec.metadata().namespace_(),
                     "\"; it holds the database's username and password for slurmdbd"),
        kSecretRecheck);
  }
  if (!secret.ok()) return secret.status();
  if (absl::Status usable = CheckCredentialsSecret(*secret); !usable.ok()) {
    return Blocked(kCredentialsInvalidReason, std::string(usable.message()), kSecretRecheck);
  }
  const std::string name = api::AccountingName(spec.metadata().name());
  return ComponentPlan{
      .objects = {{&k8s::Services(), informers_.services, name, SlurmdbdServiceBody(spec)},
                  {&k8s::Deployments(), informers_.deployments, name,
                   SlurmdbdDeploymentBody({.cluster = &spec,
                                           .munge_key_secret = outcome.auth.munge_key_secret,
                                           .jwt_key_secret = outcome.auth.jwt_key_secret})}},
      .replicas = 1,
      .workload_cache = informers_.deployments,
      .workload_name = name,
      .ready_replicas_of = &AvailableReplicasOfDeployment,
      .description = absl::StrCat("slurmdbd Deployment ", name)};
}

}  // namespace tidepool::cluster

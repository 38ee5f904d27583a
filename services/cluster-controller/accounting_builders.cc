#include "accounting_builders.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "k8s/object_json.h"
#include "k8s/ownership.h"
#include "k8s/quantity.h"
#include "k8s/secret_data.h"
#include "manifest_writing.h"
#include "owned_metadata.h"
#include "tidepool/contract.h"
#include "tidepool/naming.h"
#include "workload_names.h"

namespace tidepool::cluster {
namespace {

using k8s::JsonWriter;

constexpr char kMariaDbDataPath[] = "/var/lib/mysql";
// The volumeClaimTemplate (and volume) of the database's data.
constexpr char kDataClaimTemplate[] = "data";
constexpr char kDatabaseUser[] = "slurm";

const std::string& ClusterName(const v1::SlurmCluster& cluster) {
  return cluster.metadata().name();
}

std::string CredentialsFile(const char* key) {
  return absl::StrCat(kAccountingCredentialsMountPath, "/", key);
}

void WriteMariaDbContainer(JsonWriter& w, const v1::SlurmCluster& cluster) {
  StartContainer(w, "mariadb", cluster.spec().images().accounting_database(), {"mariadbd"});
  WriteEnv(w, {{"TIDEPOOL_DB_NAME", kDefaultAccountingDatabase},
               {"TIDEPOOL_DB_USER", kDatabaseUser},
               {"TIDEPOOL_DB_PASSWORD_FILE", CredentialsFile(kCredentialsPasswordKey)}});
  WriteServedPort(w, "mysql", api::kAccountingDatabasePort);
  w.Key("volumeMounts");
  w.StartArray();
  WriteMount(w, kDataClaimTemplate, kMariaDbDataPath, false);
  WriteMount(w, "credentials", kAccountingCredentialsMountPath, true);
  w.EndArray();
  w.EndObject();
}

// The MariaDB pod runs as the image's mysql user; fsGroup lets it write its claim and read
// the credentials (mode 0440).
void WriteMariaDbPodSpec(JsonWriter& w, const v1::SlurmCluster& cluster) {
  w.Key("spec");
  w.StartObject();
  w.Key("securityContext");
  w.StartObject();
  for (const char* key : {"runAsUser", "runAsGroup", "fsGroup"}) {
    w.Key(key);
    w.Int(kMariaDbUid);
  }
  w.Key("runAsNonRoot");
  w.Bool(true);
  w.EndObject();
  w.Key("enableServiceLinks");
  w.Bool(false);
  w.Key("containers");
  w.StartArray();
  WriteMariaDbContainer(w, cluster);
  w.EndArray();
  w.Key("volumes");
  w.StartArray();
  WriteSecretVolume(w, "credentials", AccountingDatabaseOf(cluster).credentials_secret, 0440);
  w.EndArray();
  w.EndObject();
}

void WriteDataClaimTemplate(JsonWriter& w, const v1::SlurmCluster& cluster,
                            const std::optional<ClaimSpec>& created_with) {
  const WantedClaim wanted = WantedDataClaim(cluster);
  const ClaimSpec claim =
      created_with.value_or(ClaimSpec{.storage_class = wanted.storage_class, .size = wanted.size});
  w.Key("volumeClaimTemplates");
  w.StartArray();
  w.StartObject();
  // Labelled like everything of the cluster, so that the teardown finds the claim when
  // asked to delete claims (tidepool.dev/delete-claims).
  w.Key("metadata");
  w.StartObject();
  k8s::WriteStringMember(w, "name", kDataClaimTemplate);
  w.Key("labels");
  WriteComponentLabels(w, cluster, api::kAccountingDatabaseComponent);
  w.EndObject();
  w.Key("spec");
  w.StartObject();
  WriteClaimSpecMembers(w, "ReadWriteOnce", claim.storage_class, claim.size);
  w.EndObject();
  w.EndObject();
  w.EndArray();
}

void WriteSlurmdbdContainer(JsonWriter& w, const v1::SlurmCluster& cluster) {
  const AccountingDatabase database = AccountingDatabaseOf(cluster);
  StartContainer(w, "slurmdbd", cluster.spec().images().accounting(), {"slurmdbd", "-D"});
  WriteEnv(w, {{"TIDEPOOL_SLURM_CONFIG_DIR", kSlurmConfigMountPath},
               {"TIDEPOOL_MUNGE_KEY", absl::StrCat(kMungeKeyMountPath, "/", api::kMungeKeyFile)},
               {"TIDEPOOL_JWT_KEY", absl::StrCat(kJwtKeyMountPath, "/", api::kJwtKeyFile)},
               {"TIDEPOOL_SLURMDBD_STORAGE_HOST", database.host},
               {"TIDEPOOL_SLURMDBD_STORAGE_PORT", absl::StrCat(database.port)},
               {"TIDEPOOL_SLURMDBD_STORAGE_LOC", database.database},
               {"TIDEPOOL_SLURMDBD_CREDENTIALS_DIR", kAccountingCredentialsMountPath}});
  WriteServedPort(w, "slurmdbd", api::kSlurmdbdPort);
  w.Key("volumeMounts");
  w.StartArray();
  WriteMount(w, "config", kSlurmConfigMountPath, true);
  WriteMount(w, "munge-key", kMungeKeyMountPath, true);
  WriteMount(w, "jwt-key", kJwtKeyMountPath, true);
  WriteMount(w, "credentials", kAccountingCredentialsMountPath, true);
  w.EndArray();
  w.EndObject();
}

bool HasControlCharacter(absl::string_view value) {
  return std::any_of(value.begin(), value.end(),
                     [](char c) { return absl::ascii_iscntrl(static_cast<unsigned char>(c)); });
}

}  // namespace

bool AccountingWanted(const v1::SlurmCluster& cluster) {
  return cluster.spec().accounting().enabled();
}

bool ManagedDatabaseWanted(const v1::SlurmCluster& cluster) {
  return AccountingWanted(cluster) && !cluster.spec().accounting().has_external();
}

AccountingDatabase AccountingDatabaseOf(const v1::SlurmCluster& cluster) {
  if (!ManagedDatabaseWanted(cluster)) {
    const v1::ExternalDatabase& external = cluster.spec().accounting().external();
    return {
        .managed = false,
        .host = external.host(),
        .port = external.has_port() ? external.port() : api::kAccountingDatabasePort,
        .database = external.database().empty() ? kDefaultAccountingDatabase : external.database(),
        .credentials_secret = external.credentials_secret()};
  }
  // The StatefulSet's one pod, by its name under the headless Service.
  const std::string name = api::AccountingDatabaseName(ClusterName(cluster));
  return {.managed = true,
          .host = absl::StrCat(name, "-0.", name),
          .port = api::kAccountingDatabasePort,
          .database = kDefaultAccountingDatabase,
          .credentials_secret = api::AccountingCredentialsSecretName(ClusterName(cluster))};
}

absl::Status ValidateAccountingSpec(const v1::SlurmCluster& cluster) {
  if (cluster.spec().images().accounting().empty()) {
    return absl::InvalidArgumentError(
        "spec.images.accounting is empty; name the slurmdbd image to run");
  }
  const v1::AccountingSpec& accounting = cluster.spec().accounting();
  if (accounting.has_external() && accounting.has_managed()) {
    return absl::InvalidArgumentError("spec.accounting has both managed and external; choose one");
  }
  if (!accounting.has_external()) return absl::OkStatus();
  const v1::ExternalDatabase& external = accounting.external();
  if (external.host().empty() || HasControlCharacter(external.host())) {
    return absl::InvalidArgumentError(
        "spec.accounting.external.host must name the database server");
  }
  if (external.has_port() && (external.port() < 1 || external.port() > 65535)) {
    return absl::InvalidArgumentError(
        absl::StrCat("spec.accounting.external.port is ", external.port(), "; use 1 to 65535"));
  }
  if (HasControlCharacter(external.database())) {
    return absl::InvalidArgumentError(
        "spec.accounting.external.database contains a control character");
  }
  // slurmdbd.conf takes a value up to the first whitespace, and one in double quotes as
  // the text between them; "#" and "\" the image's entrypoint escapes.
  for (const auto& [field, value] :
       {std::pair{"host", &external.host()}, std::pair{"database", &external.database()}}) {
    if (std::any_of(value->begin(), value->end(), [](char c) {
          return absl::ascii_isspace(static_cast<unsigned char>(c)) || c == '"';
        })) {
      return absl::InvalidArgumentError(absl::StrCat(
          "spec.accounting.external.", field, " \"", *value,
          "\" contains whitespace or a double quote, which slurmdbd.conf cannot hold"));
    }
  }
  if (external.credentials_secret().empty()) {
    return absl::InvalidArgumentError(
        "spec.accounting.external.credentialsSecret is empty; name the Secret with the "
        "database's username and password");
  }
  return absl::OkStatus();
}

absl::Status ValidateManagedDatabaseSpec(const v1::SlurmCluster& cluster) {
  if (absl::Status named = CheckStatefulSetName(ClusterName(cluster),
                                                api::AccountingDatabaseName(ClusterName(cluster)),
                                                "accounting database");
      !named.ok()) {
    return named;
  }
  if (cluster.spec().images().accounting_database().empty()) {
    return absl::InvalidArgumentError(
        "spec.images.accountingDatabase is empty; name the MariaDB image of the managed "
        "accounting database, or use spec.accounting.external");
  }
  const std::string& size = cluster.spec().accounting().managed().size();
  if (!size.empty()) {
    absl::StatusOr<int64_t> bytes = k8s::QuantityValue(size);
    if (!bytes.ok() || *bytes <= 0) {
      return absl::InvalidArgumentError(absl::StrCat("spec.accounting.managed.size \"", size,
                                                     "\" is not a positive quantity such as 50Gi"));
    }
  }
  return absl::OkStatus();
}

std::string AccountingCredentialsSecretBody(const v1::SlurmCluster& cluster,
                                            absl::string_view password) {
  return JsonObject([&](JsonWriter& w) {
    WriteTypeMeta(w, "v1", "Secret");
    WriteOwnedMetadata(w, cluster, api::AccountingCredentialsSecretName(ClusterName(cluster)),
                       api::kAccountingDatabaseComponent);
    k8s::WriteStringMember(w, "type", "Opaque");
    // Changing the password would lock slurmdbd out of the database made with it.
    w.Key("immutable");
    w.Bool(true);
    w.Key("data");
    w.StartObject();
    k8s::WriteStringMember(w, kCredentialsUsernameKey, absl::Base64Escape(kDatabaseUser));
    k8s::WriteStringMember(w, kCredentialsPasswordKey, absl::Base64Escape(password));
    w.EndObject();
  });
}

absl::Status CheckCredentialsSecret(absl::string_view secret_json) {
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(secret_json, "Secret");
  if (!doc.ok()) return doc.status();
  const rapidjson::Value* metadata = k8s::FindMember(*doc, "metadata");
  const std::string name = metadata != nullptr ? k8s::StringMember(*metadata, "name") : "";
  for (const char* key : {kCredentialsUsernameKey, kCredentialsPasswordKey}) {
    absl::StatusOr<std::string> decoded = k8s::SecretDataValue(*doc, key);
    const std::string value = decoded.ok() ? *std::move(decoded) : "";
    if (value.empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat("Secret \"", name, "\" has no non-empty data key \"", key,
                       "\"; slurmdbd reads the database's username and password from it"));
    }
    if (HasControlCharacter(value)) {
      return absl::FailedPreconditionError(
          absl::StrCat("Secret \"", name, "\" data key \"", key,
                       "\" contains a control character, which slurmdbd.conf cannot hold"));
    }
    // Slurm's parser ends an unquoted value at a blank and reads a '"' as a quote.
    if (value.find_first_of(" \"") != std::string::npos) {
      return absl::FailedPreconditionError(
          absl::StrCat("Secret \"", name, "\" data key \"", key,
                       "\" contains a blank or a double quote, which slurmdbd.conf cannot hold; "
                       "choose one without"));
    }
  }
  return absl::OkStatus();
}

SecretVerdict CheckGeneratedCredentialsSecret(const v1::SlurmCluster& cluster,
                                              absl::string_view secret_json) {
  if (!k8s::IsControlledByUid(secret_json, cluster.metadata().uid())) {
    return {.problem = absl::StrCat(
                "Secret \"", api::AccountingCredentialsSecretName(ClusterName(cluster)),
                "\" exists but is not controlled by this SlurmCluster; the managed "
                "database's credentials are generated there: delete or rename that Secret")};
  }
  if (absl::Status usable = CheckCredentialsSecret(secret_json); !usable.ok()) {
    return {.problem = std::string(usable.message())};
  }
  return {.usable = true};
}

std::string AccountingDatabaseServiceBody(const v1::SlurmCluster& cluster) {
  return HeadlessServiceBody(cluster, api::AccountingDatabaseName(ClusterName(cluster)),
                             api::kAccountingDatabaseComponent, "mysql",
                             api::kAccountingDatabasePort);
}

std::optional<ClaimSpec> DataClaimTemplateOf(absl::string_view stateful_set_json) {
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(stateful_set_json, "StatefulSet");
  if (!doc.ok()) return std::nullopt;
  const rapidjson::Value* spec = k8s::FindMember(*doc, "spec");
  const rapidjson::Value* templates =
      spec != nullptr ? k8s::FindMember(*spec, "volumeClaimTemplates") : nullptr;
  if (templates == nullptr || !templates->IsArray()) return std::nullopt;
  for (const rapidjson::Value& item : templates->GetArray()) {
    const rapidjson::Value* metadata = k8s::FindMember(item, "metadata");
    if (metadata != nullptr && k8s::StringMember(*metadata, "name") == kDataClaimTemplate) {
      return ClaimSpecOf(item);
    }
  }
  return std::nullopt;
}

std::string AccountingDataClaimName(absl::string_view cluster) {
  return absl::StrCat(kDataClaimTemplate, "-", api::AccountingDatabaseName(cluster), "-0");
}

WantedClaim WantedDataClaim(const v1::SlurmCluster& cluster) {
  const v1::VolumeClaim& managed = cluster.spec().accounting().managed();
  return {.field = "spec.accounting.managed",
          .name = AccountingDataClaimName(ClusterName(cluster)),
          .storage_class = managed.storage_class_name(),
          .size = managed.size().empty() ? kDefaultAccountingDatabaseSize : managed.size(),
          .move_advice = absl::StrCat(
              "move the database: dump it, delete the StatefulSet ",
              api::AccountingDatabaseName(ClusterName(cluster)),
              " and the claim; the controller makes both again with the spec's class, and the "
              "dump is loaded into the new one")};
}

std::string AccountingDatabaseStatefulSetBody(const v1::SlurmCluster& cluster,
                                              const std::optional<ClaimSpec>& created_with) {
  const std::string name = api::AccountingDatabaseName(ClusterName(cluster));
  return JsonObject([&](JsonWriter& w) {
    WriteTypeMeta(w, "apps/v1", "StatefulSet");
    WriteOwnedMetadata(w, cluster, name, api::kAccountingDatabaseComponent);
    w.Key("spec");
    w.StartObject();
    w.Key("replicas");
    w.Int(1);
    k8s::WriteStringMember(w, "serviceName", name);
    WriteSelector(w, cluster, api::kAccountingDatabaseComponent);
    w.Key("template");
    w.StartObject();
    w.Key("metadata");
    w.StartObject();
    w.Key("labels");
    WriteComponentLabels(w, cluster, api::kAccountingDatabaseComponent);
    w.EndObject();
    WriteMariaDbPodSpec(w, cluster);
    w.EndObject();
    WriteDataClaimTemplate(w, cluster, created_with);
    w.EndObject();
  });
}

std::string SlurmdbdServiceBody(const v1::SlurmCluster& cluster) {
  return ServiceBody(cluster, api::AccountingName(ClusterName(cluster)), api::kSlurmdbdComponent,
                     "slurmdbd", api::kSlurmdbdPort);
}

std::string SlurmdbdDeploymentBody(const SlurmdbdInputs& inputs) {
  const v1::SlurmCluster& cluster = *inputs.cluster;
  // Recreate: never two slurmdbd writing the database (a rolling update would overlap them).
  return DeploymentBody(cluster,
                        {.name = api::AccountingName(ClusterName(cluster)),
                         .component = api::kSlurmdbdComponent,
                         .replicas = 1,
                         .recreate = true},
                        [&](JsonWriter& w) {
                          w.Key("containers");
                          w.StartArray();
                          WriteSlurmdbdContainer(w, cluster);
                          w.EndArray();
                          w.Key("volumes");
                          w.StartArray();
                          WriteConfigVolume(w, cluster);
                          WriteSecretVolume(w, "munge-key", inputs.munge_key_secret);
                          WriteSecretVolume(w, "jwt-key", inputs.jwt_key_secret);
                          WriteSecretVolume(w, "credentials",
                                            AccountingDatabaseOf(cluster).credentials_secret);
                          w.EndArray();
                        });
}

}  // namespace tidepool::cluster

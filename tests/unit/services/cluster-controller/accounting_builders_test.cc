#include "accounting_builders.h"

#include <catch2/catch_test_macros.hpp>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "builder_test_support.h"

namespace tidepool::cluster {
namespace {

v1::SlurmCluster Managed() {
  v1::SlurmCluster cluster = ResearchCluster();
  v1::SlurmClusterSpec& spec = *cluster.mutable_spec();
  spec.mutable_images()->set_accounting("registry.example/slurmdbd:26.05");
  spec.mutable_images()->set_accounting_database("registry.example/mariadb:10.11");
  spec.mutable_accounting()->set_enabled(true);
  spec.mutable_accounting()->mutable_managed()->set_size("20Gi");
  return cluster;
}

v1::SlurmCluster External() {
  v1::SlurmCluster cluster = Managed();
  v1::AccountingSpec& accounting = *cluster.mutable_spec()->mutable_accounting();
  accounting.clear_managed();
  accounting.mutable_external()->set_host("db.example");
  accounting.mutable_external()->set_credentials_secret("acct-db");
  return cluster;
}

std::string Env(const rapidjson::Value& container, const std::string& name) {
  for (const rapidjson::Value& variable : (*At(container, {"env"})).GetArray()) {
    if (StringAt(variable, {"name"}) == name) return StringAt(variable, {"value"});
  }
  return "(unset)";
}

std::string SecretJson(const std::string& username, const std::string& password) {
  return R"({"metadata":{"name":"acct-db"},"data":{"username":")" + absl::Base64Escape(username) +
         R"(","password":")" + absl::Base64Escape(password) + R"("}})";
}

TEST_CASE("accounting is wanted when enabled; the database is managed unless external") {
  CHECK(ManagedDatabaseWanted(Managed()));
  CHECK(AccountingWanted(External()));
  CHECK_FALSE(ManagedDatabaseWanted(External()));
  v1::SlurmCluster off = Managed();
  off.mutable_spec()->mutable_accounting()->set_enabled(false);
  CHECK_FALSE(AccountingWanted(off));
  CHECK_FALSE(ManagedDatabaseWanted(off));
}

TEST_CASE("slurmdbd's database is the managed StatefulSet's pod or the external server") {
  const AccountingDatabase managed = AccountingDatabaseOf(Managed());
  CHECK(managed.managed);
  CHECK(managed.host == "research-accounting-db-0.research-accounting-db");
  CHECK(managed.port == 3306);
  CHECK(managed.database == "slurm_acct_db");
  CHECK(managed.credentials_secret == "research-accounting-db-credentials");
  v1::SlurmCluster external_cluster = External();
  external_cluster.mutable_spec()->mutable_accounting()->mutable_external()->set_port(3307);
  const AccountingDatabase external = AccountingDatabaseOf(external_cluster);
  CHECK_FALSE(external.managed);
  CHECK(external.host == "db.example");
  CHECK(external.port == 3307);
  CHECK(external.database == "slurm_acct_db");
  CHECK(external.credentials_secret == "acct-db");
}

TEST_CASE("an accounting spec that cannot work is refused naming the field") {
  CHECK(ValidateAccountingSpec(Managed()).ok());
  CHECK(ValidateManagedDatabaseSpec(Managed()).ok());
  CHECK(ValidateAccountingSpec(External()).ok());

  v1::SlurmCluster no_image = Managed();
  no_image.mutable_spec()->mutable_images()->clear_accounting();
  CHECK(absl::StrContains(ValidateAccountingSpec(no_image).message(), "spec.images.accounting"));

  v1::SlurmCluster no_db_image = Managed();
  no_db_image.mutable_spec()->mutable_images()->clear_accounting_database();
  CHECK(absl::StrContains(ValidateManagedDatabaseSpec(no_db_image).message(),
                          "spec.images.accountingDatabase"));

  v1::SlurmCluster long_name = Managed();
  long_name.mutable_metadata()->set_name(std::string(38, 'a'));  // aaa…-accounting-db: 52
  CHECK(ValidateManagedDatabaseSpec(long_name).ok());
  long_name.mutable_metadata()->set_name(std::string(39, 'a'));
  CHECK(absl::StrContains(ValidateManagedDatabaseSpec(long_name).message(),
                          "use a name of at most 38 characters"));

  v1::SlurmCluster bad_size = Managed();
  bad_size.mutable_spec()->mutable_accounting()->mutable_managed()->set_size("lots");
  CHECK(absl::StrContains(ValidateManagedDatabaseSpec(bad_size).message(),
                          "spec.accounting.managed.size"));

  v1::SlurmCluster both = External();
  both.mutable_spec()->mutable_accounting()->mutable_managed()->set_size("1Gi");
  CHECK(absl::StrContains(ValidateAccountingSpec(both).message(), "both managed and external"));

  v1::SlurmCluster bad_port = External();
  bad_port.mutable_spec()->mutable_accounting()->mutable_external()->set_port(70000);
  CHECK(absl::StrContains(ValidateAccountingSpec(bad_port).message(),
                          "spec.accounting.external.port"));

  v1::SlurmCluster injected = External();
  injected.mutable_spec()->mutable_accounting()->mutable_external()->set_host("db\nStoragePass=x");
  CHECK(absl::StrContains(ValidateAccountingSpec(injected).message(),
                          "spec.accounting.external.host"));

  v1::SlurmCluster spaced = External();
  spaced.mutable_spec()->mutable_accounting()->mutable_external()->set_database("slurm acct");
  CHECK(absl::StrContains(ValidateAccountingSpec(spaced).message(),
                          "spec.accounting.external.database \"slurm acct\" contains whitespace"));
  v1::SlurmCluster quoted = External();
  quoted.mutable_spec()->mutable_accounting()->mutable_external()->set_host("\"db\"");
  CHECK(
      absl::StrContains(ValidateAccountingSpec(quoted).message(), "spec.accounting.external.host"));
  // What the entrypoint escapes is fine here.
  v1::SlurmCluster hashed = External();
  hashed.mutable_spec()->mutable_accounting()->mutable_external()->set_database("acct#1");
  CHECK(ValidateAccountingSpec(hashed).ok());

  v1::SlurmCluster no_secret = External();
  no_secret.mutable_spec()->mutable_accounting()->mutable_external()->clear_credentials_secret();
  CHECK(absl::StrContains(ValidateAccountingSpec(no_secret).message(),
                          "spec.accounting.external.credentialsSecret"));
}

TEST_CASE("a credentials Secret must hold a username and a one-line password") {
  CHECK(CheckCredentialsSecret(SecretJson("slurm", "s3cret#x")).ok());
  const absl::Status empty = CheckCredentialsSecret(SecretJson("slurm", ""));
  CHECK(absl::IsFailedPrecondition(empty));
  CHECK(absl::StrContains(empty.message(), "\"acct-db\" has no non-empty data key \"password\""));
  const absl::Status two_lines = CheckCredentialsSecret(SecretJson("slurm", "a\nStorageHost=x"));
  CHECK(absl::StrContains(two_lines.message(), "control character"));
  // The value never reaches the message.
  CHECK_FALSE(absl::StrContains(two_lines.message(), "StorageHost"));
  for (const char* unwritable : {"two words", "\"quoted", "a\"b"}) {
    const absl::Status refused = CheckCredentialsSecret(SecretJson("slurm", unwritable));
    CHECK(absl::IsFailedPrecondition(refused));
    CHECK(absl::StrContains(refused.message(),
                            "data key \"password\" contains a blank or a double quote"));
    CHECK_FALSE(absl::StrContains(refused.message(), unwritable));
  }
  CHECK(absl::IsFailedPrecondition(CheckCredentialsSecret(SecretJson("db user", "pw"))));
  CHECK(absl::StrContains(
      CheckCredentialsSecret(R"({"metadata":{"name":"acct-db"},"data":{"password":"cA=="}})")
          .message(),
      "\"username\""));
}

TEST_CASE("the generated credentials Secret is owned, immutable and holds user and password") {
  const rapidjson::Document secret = Parse(AccountingCredentialsSecretBody(Managed(), "abc123"));
  CHECK(StringAt(secret, {"metadata", "name"}) == "research-accounting-db-credentials");
  CHECK(StringAt(secret, {"metadata", "ownerReferences", "0", "uid"}) == "uid-1");
  CHECK(At(secret, {"immutable"})->GetBool());
  CHECK(StringAt(secret, {"data", "username"}) == absl::Base64Escape("slurm"));
  CHECK(StringAt(secret, {"data", "password"}) == absl::Base64Escape("abc123"));
  CHECK(CheckCredentialsSecret(AccountingCredentialsSecretBody(Managed(), "abc123")).ok());
}

TEST_CASE("an existing generated credentials Secret is used only when it is this cluster's") {
  const std::string ours = AccountingCredentialsSecretBody(Managed(), "abc123");
  CHECK(CheckGeneratedCredentialsSecret(Managed(), ours).usable);
  v1::SlurmCluster again = Managed();  // a cluster made again under the same name
  again.mutable_metadata()->set_uid("uid-2");
  const SecretVerdict foreign = CheckGeneratedCredentialsSecret(again, ours);
  CHECK_FALSE(foreign.usable);
  CHECK(absl::StrContains(foreign.problem,
                          "\"research-accounting-db-credentials\" exists but is not controlled"));
  const SecretVerdict empty =
      CheckGeneratedCredentialsSecret(Managed(), AccountingCredentialsSecretBody(Managed(), ""));
  CHECK_FALSE(empty.usable);
  CHECK(absl::StrContains(empty.problem, "\"password\""));
}

TEST_CASE("an existing database StatefulSet keeps its claim template; the claim follows the spec") {
  v1::SlurmCluster cluster = Managed();
  cluster.mutable_spec()->mutable_accounting()->mutable_managed()->set_size("80Gi");
  cluster.mutable_spec()->mutable_accounting()->mutable_managed()->set_storage_class_name("fast");
  const std::string created = AccountingDatabaseStatefulSetBody(Managed());
  const std::optional<ClaimSpec> kept = DataClaimTemplateOf(created);
  REQUIRE(kept.has_value());
  CHECK(kept->size == "20Gi");
  CHECK(kept->storage_class.empty());
  // The API server refuses any change of volumeClaimTemplates: applied as it was made.
  const rapidjson::Document set = Parse(AccountingDatabaseStatefulSetBody(cluster, kept));
  CHECK(StringAt(set, {"spec", "volumeClaimTemplates", "0", "spec", "resources", "requests",
                       "storage"}) == "20Gi");
  const rapidjson::Value* template_spec = At(set, {"spec", "volumeClaimTemplates", "0", "spec"});
  REQUIRE(template_spec != nullptr);
  CHECK_FALSE(template_spec->HasMember("storageClassName"));
  const rapidjson::Document fresh = Parse(AccountingDatabaseStatefulSetBody(cluster));
  CHECK(StringAt(fresh, {"spec", "volumeClaimTemplates", "0", "spec", "storageClassName"}) ==
        "fast");
  const WantedClaim wanted = WantedDataClaim(cluster);
  CHECK(wanted.name == "data-research-accounting-db-0");
  CHECK(wanted.size == "80Gi");
  CHECK(wanted.field == "spec.accounting.managed");
  CHECK_FALSE(DataClaimTemplateOf(R"({"spec":{}})").has_value());
}

TEST_CASE("the managed database is one non-root MariaDB keeping its data on a claim") {
  const rapidjson::Document set = Parse(AccountingDatabaseStatefulSetBody(Managed()));
  CHECK(StringAt(set, {"kind"}) == "StatefulSet");
  CHECK(StringAt(set, {"metadata", "name"}) == "research-accounting-db");
  CHECK(StringAt(set, {"spec", "serviceName"}) == "research-accounting-db");
  CHECK(IntAt(set, {"spec", "replicas"}) == 1);
  const rapidjson::Value& pod = *At(set, {"spec", "template", "spec"});
  CHECK(IntAt(pod, {"securityContext", "runAsUser"}) == kMariaDbUid);
  CHECK(IntAt(pod, {"securityContext", "fsGroup"}) == kMariaDbUid);
  const rapidjson::Value& container = *At(pod, {"containers", "0"});
  CHECK(StringAt(container, {"image"}) == "registry.example/mariadb:10.11");
  CHECK(Env(container, "TIDEPOOL_DB_NAME") == "slurm_acct_db");
  CHECK(Env(container, "TIDEPOOL_DB_PASSWORD_FILE") == "/etc/tidepool/accounting-db/password");
  CHECK(IntAt(container, {"readinessProbe", "tcpSocket", "port"}) == 3306);
  CHECK(StringAt(pod, {"volumes", "0", "secret", "secretName"}) ==
        "research-accounting-db-credentials");
  CHECK(IntAt(pod, {"volumes", "0", "secret", "defaultMode"}) == 0440);
  const rapidjson::Value& claim = *At(set, {"spec", "volumeClaimTemplates", "0"});
  CHECK(StringAt(claim, {"metadata", "name"}) == "data");
  CHECK(StringAt(claim, {"metadata", "labels", "tidepool.dev/cluster"}) == "research");
  CHECK(StringAt(claim, {"spec", "resources", "requests", "storage"}) == "20Gi");
  CHECK(At(claim, {"spec", "storageClassName"}) == nullptr);
  // The claim outlives the StatefulSet: no whenDeleted retention policy is asked for.
  CHECK(At(set, {"spec", "persistentVolumeClaimRetentionPolicy"}) == nullptr);

  const rapidjson::Document service = Parse(AccountingDatabaseServiceBody(Managed()));
  CHECK(StringAt(service, {"spec", "clusterIP"}) == "None");
  CHECK(StringAt(service, {"spec", "ports", "0", "name"}) == "mysql");
  CHECK(IntAt(service, {"spec", "ports", "0", "port"}) == 3306);
}

TEST_CASE("slurmdbd is one pod at a time with its keys and the database's credentials") {
  const v1::SlurmCluster cluster = External();
  const rapidjson::Document deployment = Parse(SlurmdbdDeploymentBody(
      {.cluster = &cluster, .munge_key_secret = "mk", .jwt_key_secret = "jk"}));
  CHECK(StringAt(deployment, {"metadata", "name"}) == "research-accounting");
  CHECK(StringAt(deployment, {"spec", "strategy", "type"}) == "Recreate");
  CHECK(StringAt(deployment, {"spec", "selector", "matchLabels", "tidepool.dev/component"}) ==
        "slurmdbd");
  const rapidjson::Value& pod = *At(deployment, {"spec", "template", "spec"});
  const rapidjson::Value& container = *At(pod, {"containers", "0"});
  CHECK(StringAt(container, {"image"}) == "registry.example/slurmdbd:26.05");
  CHECK(Env(container, "TIDEPOOL_SLURMDBD_STORAGE_HOST") == "db.example");
  CHECK(Env(container, "TIDEPOOL_SLURMDBD_STORAGE_PORT") == "3306");
  CHECK(Env(container, "TIDEPOOL_SLURMDBD_STORAGE_LOC") == "slurm_acct_db");
  CHECK(Env(container, "TIDEPOOL_SLURMDBD_CREDENTIALS_DIR") == "/etc/tidepool/accounting-db");
  CHECK(IntAt(container, {"readinessProbe", "tcpSocket", "port"}) == 6819);
  CHECK(StringAt(pod, {"volumes", "1", "secret", "secretName"}) == "mk");
  CHECK(StringAt(pod, {"volumes", "2", "secret", "secretName"}) == "jk");
  CHECK(StringAt(pod, {"volumes", "3", "secret", "secretName"}) == "acct-db");
  // The credentials reach slurmdbd only as files of that Secret, mounted read-only where
  // TIDEPOOL_SLURMDBD_CREDENTIALS_DIR points; never through the environment, which
  // `kubectl describe` and /proc/<pid>/environ show.
  CHECK(StringAt(pod, {"volumes", "3", "name"}) == "credentials");
  const rapidjson::Value& mounts = *At(container, {"volumeMounts"});
  int credential_mounts = 0;
  for (const rapidjson::Value& mount : mounts.GetArray()) {
    if (StringAt(mount, {"name"}) != "credentials") continue;
    ++credential_mounts;
    CHECK(StringAt(mount, {"mountPath"}) == "/etc/tidepool/accounting-db");
    CHECK(At(mount, {"readOnly"})->GetBool());
  }
  CHECK(credential_mounts == 1);
  CHECK(At(container, {"envFrom"}) == nullptr);
  for (const rapidjson::Value& variable : (*At(container, {"env"})).GetArray()) {
    INFO(StringAt(variable, {"name"}));
    CHECK(At(variable, {"valueFrom"}) == nullptr);
  }

  const rapidjson::Document service = Parse(SlurmdbdServiceBody(cluster));
  CHECK(StringAt(service, {"metadata", "name"}) == "research-accounting");
  CHECK(IntAt(service, {"spec", "ports", "0", "port"}) == 6819);
}

}  // namespace
}  // namespace tidepool::cluster

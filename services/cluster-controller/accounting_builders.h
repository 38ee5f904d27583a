#pragma once

// Pure builders of a cluster's accounting objects (accounting_sync.h applies them):
//   "<cluster>-accounting-db-credentials"  Secret, managed database only: username "slurm"
//                         and a generated password; owned, immutable, never regenerated
//   "<cluster>-accounting-db"  headless Service and StatefulSet of one MariaDB, its data on
//                         the volumeClaimTemplate claim "data-<cluster>-accounting-db-0",
//                         which outlives the cluster
//   "<cluster>-accounting"     Service and Deployment of one slurmdbd (Recreate: never two
//                         writing the database at once)
// slurmdbd.conf is written in the pod by the image's entrypoint from the env and the
// mounted credentials, so the password lives only in the Secret and a 0600 file.

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "auth_builders.h"
#include "claim_drift.h"
#include "tidepool/v1/slurm_cluster.pb.h"

namespace tidepool::cluster {

inline constexpr char kAccountingCredentialsMountPath[] = "/etc/tidepool/accounting-db";
inline constexpr char kCredentialsUsernameKey[] = "username";
inline constexpr char kCredentialsPasswordKey[] = "password";
inline constexpr char kDefaultAccountingDatabase[] = "slurm_acct_db";
inline constexpr char kDefaultAccountingDatabaseSize[] = "10Gi";
// The MariaDB image's mysql user (images/mariadb/Dockerfile pins it).
inline constexpr int kMariaDbUid = 999;

// Where slurmdbd stores its data: the managed MariaDB or spec.accounting.external.
struct AccountingDatabase {
  bool managed = false;
  std::string host;
  int port = 0;
  std::string database;
  std::string credentials_secret;  // in the cluster's namespace
};
AccountingDatabase AccountingDatabaseOf(const v1::SlurmCluster& cluster);

// spec.accounting.enabled.
bool AccountingWanted(const v1::SlurmCluster& cluster);
// Accounting enabled without spec.accounting.external: the controller runs the database.
bool ManagedDatabaseWanted(const v1::SlurmCluster& cluster);

// What slurmdbd needs from the spec (images.accounting; managed or external with host and
// credentialsSecret); what the managed database needs (images.accountingDatabase, size).
// InvalidArgument names the field and says what is accepted.
absl::Status ValidateAccountingSpec(const v1::SlurmCluster& cluster);
absl::Status ValidateManagedDatabaseSpec(const v1::SlurmCluster& cluster);

// A create body: the generated credentials Secret with `password`.
std::string AccountingCredentialsSecretBody(const v1::SlurmCluster& cluster,
                                            absl::string_view password);
// Whether a credentials Secret holds a username and a password slurmdbd can use (no
// control characters: they would end the line of slurmdbd.conf; no blank or '"': Slurm's
// parser would end or quote the value there). FailedPrecondition names the Secret and
// the key, never the value.
absl::Status CheckCredentialsSecret(absl::string_view secret_json);
// The managed database's generated credentials Secret that already exists: usable when
// this SlurmCluster controls it and CheckCredentialsSecret accepts it.
SecretVerdict CheckGeneratedCredentialsSecret(const v1::SlurmCluster& cluster,
                                              absl::string_view secret_json);

// Server-side apply bodies (JSON). Call only with a spec the validators accept.
std::string AccountingDatabaseServiceBody(const v1::SlurmCluster& cluster);
// `created_with`: the data claim template of the StatefulSet that exists, kept as it is
// (the API server refuses a change to volumeClaimTemplates; the claim itself is resized).
std::string AccountingDatabaseStatefulSetBody(
    const v1::SlurmCluster& cluster, const std::optional<ClaimSpec>& created_with = std::nullopt);
// The data claim template of a StatefulSet's JSON; nullopt when it has none.
std::optional<ClaimSpec> DataClaimTemplateOf(absl::string_view stateful_set_json);
// "data-<cluster>-accounting-db-0", and what spec.accounting.managed asks of it.
std::string AccountingDataClaimName(absl::string_view cluster);
WantedClaim WantedDataClaim(const v1::SlurmCluster& cluster);
std::string SlurmdbdServiceBody(const v1::SlurmCluster& cluster);

struct SlurmdbdInputs {
  const v1::SlurmCluster* cluster = nullptr;
  std::string munge_key_secret;
  std::string jwt_key_secret;
};
std::string SlurmdbdDeploymentBody(const SlurmdbdInputs& inputs);

}  // namespace tidepool::cluster

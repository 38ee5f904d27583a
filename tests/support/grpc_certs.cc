#include "support/grpc_certs.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "support/testenv.h"

namespace tidepool::testing {

absl::Status MakeGrpcCertificates(const std::string& dir,
                                  const std::vector<std::string>& identities) {
  std::vector<std::string> argv = {SourceRoot() + "/tools/grpc-certs/make", dir};
  argv.insert(argv.end(), identities.begin(), identities.end());
  absl::StatusOr<CommandResult> made = RunCommand(argv, absl::Minutes(1));
  if (!made.ok()) return made.status();
  if (made->exit_code != 0) {
    return absl::InternalError(
        absl::StrCat(absl::StrJoin(argv, " "), " failed (", made->exit_code, "): ", made->output));
  }
  return absl::OkStatus();
}

absl::StatusOr<common::GrpcTls> GrpcIdentity(const std::string& dir, const std::string& identity) {
  return common::LoadGrpcTlsDir(absl::StrCat(dir, "/", identity));
}

}  // namespace tidepool::testing

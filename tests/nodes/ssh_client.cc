#include "nodes/ssh_client.h"

#include <stdlib.h>

#include <catch2/catch_test_macros.hpp>

#include "absl/strings/str_cat.h"
#include "nodes/kubectl_helpers.h"

namespace tidepool::testing {

SshClient::SshClient() {
  char dir[] = "/tmp/tidepool-ssh-XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  dir_ = dir;
}

SshClient::~SshClient() { (void)RunCommand({"/bin/rm", "-rf", dir_}, absl::Seconds(10)); }

std::string SshClient::NewKey(const std::string& user) {
  const std::string key = absl::StrCat(dir_, "/", user);
  MustRun({"/usr/bin/ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", user, "-f", key});
  return key;
}

CommandResult SshClient::Run(const std::string& user, const std::string& key_user,
                             const std::string& host, const std::string& command,
                             bool strict_host_key) const {
  absl::StatusOr<CommandResult> result = RunCommand(
      {"/usr/bin/ssh", "-i", absl::StrCat(dir_, "/", key_user), "-o", "IdentitiesOnly=yes", "-o",
       strict_host_key ? "StrictHostKeyChecking=yes" : "StrictHostKeyChecking=no", "-o",
       absl::StrCat("UserKnownHostsFile=", dir_, "/known_hosts"), "-o", "BatchMode=yes", "-o",
       "ConnectTimeout=5", "-o", "LogLevel=ERROR", absl::StrCat(user, "@", host), command},
      absl::Seconds(60));
  REQUIRE(result.ok());
  return *result;
}

}  // namespace tidepool::testing

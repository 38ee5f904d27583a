#pragma once

// ssh from the host (which reaches Services' ClusterIPs) to a login pod, as a cluster's
// users: a temporary directory with a key pair per user ("<dir>/<user>",
// "<dir>/<user>.pub") and the known_hosts ssh keeps, removed when the client goes.

#include <string>

#include "support/testenv.h"

namespace tidepool::testing {

class SshClient {
 public:
  SshClient();
  ~SshClient();
  SshClient(const SshClient&) = delete;
  SshClient& operator=(const SshClient&) = delete;

  // Makes a key pair for `user`; returns the private key's path.
  std::string NewKey(const std::string& user);

  // ssh as `user` with the key of `key_user` to `host`, running `command`.
  CommandResult Run(const std::string& user, const std::string& key_user, const std::string& host,
                    const std::string& command, bool strict_host_key = false) const;

 private:
  std::string dir_;
};

}  // namespace tidepool::testing

#pragma once

// Pure readers and builders of a cluster's login users. The Secret spec.login.sshKeysSecret
// names them: each data key is a user name, its value that user's authorized_keys. Without
// SSSD the cluster-controller gives each an account in the ConfigMap "<cluster>-users"
// (passwd and group lines: uid = gid from kFirstLoginUid upward, home /home/<user>, shell
// /bin/bash) that every Slurm pod of the cluster mounts. An id once given stays with its
// user while the ConfigMap has it; a new user gets the lowest free id.

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "tidepool/v1/slurm_cluster.pb.h"

namespace tidepool::cluster {

inline constexpr int kFirstLoginUid = 20000;

struct LoginUser {
  std::string name;
  int id = 0;  // uid and gid
};

// A POSIX user name a login user may have: [a-z_][a-z0-9_-]* of at most 32 characters,
// and not root or one of the system accounts the Slurm images have. InvalidArgument
// saying why.
absl::Status ValidateLoginUserName(absl::string_view name);

// The user names in the sshKeysSecret (its data keys, sorted), or what is wrong with the
// Secret, naming it, the spec field and the offending key; never a key's value.
struct SshKeysRead {
  std::vector<std::string> users;
  std::string problem;  // set: unusable
};
SshKeysRead ReadSshKeysSecret(const v1::SlurmCluster& cluster, absl::string_view secret_json);
// The message when the sshKeysSecret does not exist.
std::string MissingSshKeysSecret(const v1::SlurmCluster& cluster);

// The ids the users ConfigMap gives (from its passwd lines), by user name; empty when
// there is no such ConfigMap or it cannot be read.
std::map<std::string, int> AssignedIds(absl::string_view users_config_map_json);

// Every one of `users` with an id: the assigned one while it is >= kFirstLoginUid and not
// taken by another, else the lowest free id >= kFirstLoginUid (new users in name order).
std::vector<LoginUser> AssignIds(const std::vector<std::string>& users,
                                 const std::map<std::string, int>& assigned);

// "alice:*:20000:20000::/home/alice:/bin/bash\n" per user, and "alice:x:20000:\n".
std::string PasswdLines(const std::vector<LoginUser>& users);
std::string GroupLines(const std::vector<LoginUser>& users);

// The server-side apply body of the users ConfigMap, owned by the cluster.
std::string UsersConfigMapBody(const v1::SlurmCluster& cluster,
                               const std::vector<LoginUser>& users);

// The merge patch that sets a pod's api::kUsersHashAnnotation to `hash`.
std::string UsersHashAnnotationPatch(absl::string_view hash);

}  // namespace tidepool::cluster

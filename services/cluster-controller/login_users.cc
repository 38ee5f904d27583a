#include "login_users.h"

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "k8s/object_json.h"
#include "manifest_writing.h"
#include "owned_metadata.h"
#include "tidepool/contract.h"
#include "tidepool/naming.h"

namespace tidepool::cluster {
namespace {

using k8s::JsonWriter;

// What useradd accepts by default (and the length glibc's utmp keeps).
constexpr size_t kMaxUserName = 32;

// Accounts of Debian's base system and of the Slurm images (slurm, munge, slurmrest,
// sshd): a login user by one of these names would take over a daemon's identity or be
// skipped by the entrypoint, which never changes an existing account.
const std::set<std::string, std::less<>>& SystemAccounts() {
  static const auto* const kAccounts = new std::set<std::string, std::less<>>{"root",
                                                                              "daemon",
                                                                              "bin",
                                                                              "sys",
                                                                              "sync",
                                                                              "games",
                                                                              "man",
                                                                              "lp",
                                                                              "mail",
                                                                              "news",
                                                                              "uucp",
                                                                              "proxy",
                                                                              "www-data",
                                                                              "backup",
                                                                              "list",
                                                                              "irc",
                                                                              "gnats",
                                                                              "nobody",
                                                                              "_apt",
                                                                              "messagebus",
                                                                              "sshd",
                                                                              "munge",
                                                                              "slurm",
                                                                              "slurmrest",
                                                                              "mysql",
                                                                              "sssd",
                                                                              "polkitd",
                                                                              "systemd-network",
                                                                              "systemd-resolve",
                                                                              "systemd-timesync",
                                                                              "systemd-journal",
                                                                              "nogroup",
                                                                              "adm",
                                                                              "tty",
                                                                              "disk",
                                                                              "kmem",
                                                                              "dialout",
                                                                              "shadow",
                                                                              "staff",
                                                                              "users",
                                                                              "operator",
                                                                              "wheel",
                                                                              "ssh"};
  return *kAccounts;
}

bool IsNameStart(char c) { return absl::ascii_islower(c) || c == '_'; }
bool IsNameChar(char c) {
  return absl::ascii_islower(c) || absl::ascii_isdigit(c) || c == '_' || c == '-';
}

std::string Quoted(absl::string_view text) { return absl::StrCat("\"", text, "\""); }

}  // namespace

absl::Status ValidateLoginUserName(absl::string_view name) {
  if (name.empty() || name.size() > kMaxUserName) {
    return absl::InvalidArgumentError(
        absl::StrCat("is not a user name: use 1 to ", kMaxUserName, " characters"));
  }
  if (!IsNameStart(name[0])) {
    return absl::InvalidArgumentError(
        "is not a user name: start with a lowercase letter or an underscore");
  }
  for (char c : name) {
    if (!IsNameChar(c)) {
      return absl::InvalidArgumentError(
          "is not a user name: use lowercase letters, digits, '_' and '-' only");
    }
  }
  if (SystemAccounts().contains(name)) {
    return absl::InvalidArgumentError(
        "is root or a system account of the Slurm images, which cannot log in");
  }
  return absl::OkStatus();
}

SshKeysRead ReadSshKeysSecret(const v1::SlurmCluster& cluster, absl::string_view secret_json) {
  const std::string secret =
      absl::StrCat("Secret ", Quoted(cluster.spec().login().ssh_keys_secret()),
                   " named in spec.login.sshKeysSecret");
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(secret_json, "Secret");
  if (!doc.ok()) return {.problem = absl::StrCat(secret, " cannot be read as a Secret")};
  SshKeysRead read;
  const rapidjson::Value* data = k8s::FindMember(*doc, "data");
  if (data == nullptr || !data->IsObject() || data->MemberCount() == 0) {
    return {.problem = absl::StrCat(secret,
                                    " has no keys: add one per user, its name the user name and "
                                    "its value the user's authorized_keys")};
  }
  for (const auto& member : data->GetObject()) {
    const absl::string_view user(member.name.GetString(), member.name.GetStringLength());
    if (absl::Status valid = ValidateLoginUserName(user); !valid.ok()) {
      return {.problem = absl::StrCat(secret, ": key ", Quoted(user), " ", valid.message(),
                                      "; rename or remove the key")};
    }
    read.users.emplace_back(user);
  }
  std::sort(read.users.begin(), read.users.end());
  return read;
}

std::string MissingSshKeysSecret(const v1::SlurmCluster& cluster) {
  return absl::StrCat("Secret ", Quoted(cluster.spec().login().ssh_keys_secret()),
                      " named in spec.login.sshKeysSecret does not exist in namespace ",
                      Quoted(cluster.metadata().namespace_()),
                      ": create it with one key per user, its name the user name and its value "
                      "the user's authorized_keys");
}

std::map<std::string, int> AssignedIds(absl::string_view users_config_map_json) {
  std::map<std::string, int> ids;
  absl::StatusOr<rapidjson::Document> doc =
      k8s::ParseJsonObject(users_config_map_json, "ConfigMap");
  if (!doc.ok()) return ids;
  const rapidjson::Value* data = k8s::FindMember(*doc, "data");
  if (data == nullptr) return ids;
  const std::string passwd = k8s::StringMember(*data, api::kUsersPasswdFile);
  for (absl::string_view line : absl::StrSplit(passwd, '\n', absl::SkipEmpty())) {
    const std::vector<absl::string_view> fields = absl::StrSplit(line, ':');
    int id = 0;
    if (fields.size() != 7 || !absl::SimpleAtoi(fields[2], &id)) continue;
    ids.emplace(std::string(fields[0]), id);
  }
  return ids;
}

std::vector<LoginUser> AssignIds(const std::vector<std::string>& users,
                                 const std::map<std::string, int>& assigned) {
  std::vector<LoginUser> result;
  std::set<int> taken;
  std::vector<std::string> unassigned;
  for (const std::string& user : users) {
    auto it = assigned.find(user);
    if (it != assigned.end() && it->second >= kFirstLoginUid && taken.insert(it->second).second) {
      result.push_back({.name = user, .id = it->second});
    } else {
      unassigned.push_back(user);
    }
  }
  int next = kFirstLoginUid;
  for (const std::string& user : unassigned) {
    while (taken.contains(next)) ++next;
    taken.insert(next);
    result.push_back({.name = user, .id = next});
  }
  std::sort(result.begin(), result.end(),
            [](const LoginUser& a, const LoginUser& b) { return a.name < b.name; });
  return result;
}

std::string PasswdLines(const std::vector<LoginUser>& users) {
  // No password ("*", and no shadow entry): keys are the only way in.
  std::string lines;
  for (const LoginUser& user : users) {
    absl::StrAppend(&lines, user.name, ":*:", user.id, ":", user.id, "::/home/", user.name,
                    ":/bin/bash\n");
  }
  return lines;
}

std::string GroupLines(const std::vector<LoginUser>& users) {
  std::string lines;
  for (const LoginUser& user : users) absl::StrAppend(&lines, user.name, ":x:", user.id, ":\n");
  return lines;
}

std::string UsersConfigMapBody(const v1::SlurmCluster& cluster,
                               const std::vector<LoginUser>& users) {
  return JsonObject([&](JsonWriter& w) {
    WriteTypeMeta(w, "v1", "ConfigMap");
    WriteOwnedMetadata(w, cluster, api::UsersConfigMapName(cluster.metadata().name()),
                       api::kLoginComponent);
    w.Key("data");
    w.StartObject();
    k8s::WriteStringMember(w, api::kUsersPasswdFile, PasswdLines(users));
    k8s::WriteStringMember(w, api::kUsersGroupFile, GroupLines(users));
    w.EndObject();
  });
}

std::string UsersHashAnnotationPatch(absl::string_view hash) {
  return k8s::AnnotationMergePatch(api::kUsersHashAnnotation, hash);
}

}  // namespace tidepool::cluster

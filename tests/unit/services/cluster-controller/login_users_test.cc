#include "login_users.h"

#include <catch2/catch_test_macros.hpp>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "builder_test_support.h"

namespace tidepool::cluster {
namespace {

v1::SlurmCluster Cluster() {
  v1::SlurmCluster cluster = ResearchCluster();
  cluster.mutable_spec()->mutable_login()->set_ssh_keys_secret("research-ssh-keys");
  return cluster;
}

// A Secret whose data has these keys (values: a base64 authorized_keys line).
std::string KeysSecret(const std::vector<std::string>& users) {
  std::string data;
  for (const std::string& user : users) {
    if (!data.empty()) data += ",";
    data += "\"" + user + "\":\"c3NoLWVkMjU1MTkgQUFBQQ==\"";
  }
  return R"({"kind":"Secret","metadata":{"name":"research-ssh-keys"},"data":{)" + data + "}}";
}

std::string UsersConfigMap(const std::string& passwd) {
  return R"({"kind":"ConfigMap","data":{"passwd":")" + passwd + R"(","group":""}})";
}

TEST_CASE("login user names are POSIX names, not root or a system account") {
  for (const char* name :
       {"alice", "_svc", "bob-2", "c_d", "a", "abcdefghijklmnopqrstuvwxyz012345"}) {
    CAPTURE(name);
    CHECK(ValidateLoginUserName(name).ok());
  }
  for (const char* name : {"", "Alice", "2bob", "-x", "a.b", "a b", "a$", "ali:ce", "é",
                           "abcdefghijklmnopqrstuvwxyz0123456", "root", "slurm", "munge", "sshd",
                           "nobody", "daemon", "slurmrest"}) {
    CAPTURE(name);
    CHECK(absl::IsInvalidArgument(ValidateLoginUserName(name)));
  }
}

TEST_CASE("the sshKeysSecret's keys are the users, sorted") {
  const SshKeysRead read = ReadSshKeysSecret(Cluster(), KeysSecret({"carol", "alice", "bob"}));
  CHECK(read.problem.empty());
  CHECK(read.users == std::vector<std::string>{"alice", "bob", "carol"});
}

TEST_CASE("a bad sshKeysSecret is refused naming the Secret and the key") {
  SECTION("a key that is not a user name") {
    const SshKeysRead read = ReadSshKeysSecret(Cluster(), KeysSecret({"alice", "Bob.Smith"}));
    CHECK(read.users.empty());
    CHECK(absl::StrContains(read.problem, "Secret \"research-ssh-keys\""));
    CHECK(absl::StrContains(read.problem, "spec.login.sshKeysSecret"));
    CHECK(absl::StrContains(read.problem, "key \"Bob.Smith\""));
    // Never the value (an authorized_keys line) in a message.
    CHECK_FALSE(absl::StrContains(read.problem, "c3NoLWVkMjU1MTkgQUFBQQ"));
  }
  SECTION("root") {
    const SshKeysRead read = ReadSshKeysSecret(Cluster(), KeysSecret({"root"}));
    CHECK(absl::StrContains(read.problem, "key \"root\""));
    CHECK(absl::StrContains(read.problem, "system account"));
  }
  SECTION("no keys at all") {
    const SshKeysRead read = ReadSshKeysSecret(Cluster(), R"({"kind":"Secret"})");
    CHECK(absl::StrContains(read.problem, "has no keys"));
  }
  SECTION("missing") {
    const std::string message = MissingSshKeysSecret(Cluster());
    CHECK(absl::StrContains(message, "Secret \"research-ssh-keys\""));
    CHECK(absl::StrContains(message, "does not exist in namespace \"hpc\""));
  }
}

TEST_CASE("ids start at 20000 and stay with their users") {
  SECTION("new users in name order") {
    const std::vector<LoginUser> users = AssignIds({"alice", "bob"}, {});
    REQUIRE(users.size() == 2);
    CHECK(users[0].name == "alice");
    CHECK(users[0].id == 20000);
    CHECK(users[1].id == 20001);
  }
  SECTION("an existing assignment is kept; a new user gets the lowest free id") {
    const std::vector<LoginUser> users =
        AssignIds({"aaron", "bob", "carol"}, {{"bob", 20000}, {"carol", 20002}, {"dave", 20001}});
    REQUIRE(users.size() == 3);
    CHECK(users[0].name == "aaron");
    CHECK(users[0].id == 20001);  // dave left: his id is free again
    CHECK(users[1].id == 20000);
    CHECK(users[2].id == 20002);
  }
  SECTION("an id below 20000 or given twice is replaced") {
    const std::vector<LoginUser> users =
        AssignIds({"alice", "bob", "carol"}, {{"alice", 1000}, {"bob", 20005}, {"carol", 20005}});
    CHECK(users[0].id == 20000);
    CHECK(users[1].id == 20005);
    CHECK(users[2].id == 20001);
  }
}

TEST_CASE("the users ConfigMap has passwd and group lines and is read back") {
  v1::SlurmCluster cluster = Cluster();
  const std::vector<LoginUser> users = {{.name = "alice", .id = 20000},
                                        {.name = "bob", .id = 20003}};
  CHECK(PasswdLines(users) ==
        "alice:*:20000:20000::/home/alice:/bin/bash\nbob:*:20003:20003::/home/bob:/bin/bash\n");
  CHECK(GroupLines(users) == "alice:x:20000:\nbob:x:20003:\n");
  const std::string body = UsersConfigMapBody(cluster, users);
  const rapidjson::Document doc = Parse(body);
  CHECK(StringAt(doc, {"kind"}) == "ConfigMap");
  CHECK(StringAt(doc, {"metadata", "name"}) == "research-users");
  CHECK(StringAt(doc, {"metadata", "labels", "tidepool.dev/component"}) == "login");
  CHECK(StringAt(doc, {"metadata", "ownerReferences", "0", "uid"}) == "uid-1");
  CHECK(StringAt(doc, {"data", "group"}) == GroupLines(users));
  CHECK(AssignedIds(body) == std::map<std::string, int>{{"alice", 20000}, {"bob", 20003}});
  // Lines it cannot read give no id.
  CHECK(AssignedIds(UsersConfigMap("junk\\ncarol:*:x:1::/home/carol:/bin/bash\\n")).empty());
  CHECK(AssignedIds("not json").empty());
}

TEST_CASE("pods are told of changed users through an annotation") {
  const rapidjson::Document patch = Parse(UsersHashAnnotationPatch("sha256:abc"));
  CHECK(StringAt(patch, {"metadata", "annotations", "tidepool.dev/users-hash"}) == "sha256:abc");
}

}  // namespace
}  // namespace tidepool::cluster

// Login pods of a SlurmCluster on real kubelet nodes, for the newest Slurm version the nodes
// carry: the cluster's users ssh in through the login Service with the keys of the
// Secret spec.login.sshKeysSecret names and use Slurm as usual; their jobs run as them
// (uid 20000 on up, resolved by slurmctld and slurmd through the users ConfigMap). No one
// else gets in, and a replaced login pod presents the same host key. The four services
// run as processes beside the test (tidepool_services.h); ssh and ssh-keyscan run on the
// host, which reaches the Service's ClusterIP.
#include <stdlib.h>

#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "nodes/kubectl_helpers.h"
#include "nodes/research_cluster.h"
#include "nodes/ssh_client.h"
#include "nodes/tidepool_services.h"
#include "support/eventually.h"
#include "support/testenv.h"

namespace tidepool::testing {
namespace {

// The host keys the login Service presents (ssh-keyscan's key lines, without its "# host:22
// SSH-2.0-…" comments or errors), "" when none.
std::string HostKeys(const std::string& host) {
  absl::StatusOr<CommandResult> scan =
      RunCommand({"/usr/bin/ssh-keyscan", "-T", "5", host}, absl::Seconds(20));
  if (!scan.ok() || scan->exit_code != 0) return "";
  // Key lines only ("<host> <type> <key>"): a connection sshd turned away prints
  // "<host>: Connection closed by remote host" among them, and ssh-keyscan still exits 0.
  std::string keys;
  for (absl::string_view line : absl::StrSplit(scan->output, '\n', absl::SkipWhitespace())) {
    if (absl::StartsWith(line, host + " ")) absl::StrAppend(&keys, line, "\n");
  }
  return keys;
}

std::string Condition(const KubernetesEnv& env, const std::string& ns, const std::string& type,
                      const std::string& field) {
  return TryKubectl(env, {"-n", ns, "get", "slurmcluster", "research", "-o",
                          absl::StrCat("jsonpath={.status.conditions[?(@.type==\"", type, "\")].",
                                       field, "}")})
      .value_or("");
}

std::string LoginPods(const KubernetesEnv& env, const std::string& ns) {
  return TryKubectl(env, {"-n", ns, "get", "pods", "-l", "tidepool.dev/component=login", "-o",
                          "jsonpath={range .items[*]}{.metadata.name} "
                          "{.status.containerStatuses[0].ready}{\"\\n\"}{end}"})
      .value_or("");
}

TEST_CASE("users ssh into a SlurmCluster's login pods and run jobs as themselves") {
  const KubernetesEnv env = RequireKubernetes();
  MustKubectl(env, {"apply", "-f", SourceRoot() + "/manifests/crds"});
  MustKubectl(env, {"wait", "--for=condition=Established", "--timeout=60s", "crd",
                    "slurmclusters.tidepool.dev", "nodesets.tidepool.dev"});
  const std::vector<std::string> tags = SlurmTags(env, SlurmVersions::kNewest);
  REQUIRE(!tags.empty());
  for (const std::string& tag : tags) {
    INFO("Slurm " << tag);
    const std::string ns = SlurmTagNamespace("login", tag);
    EnsureNamespace(env, ns);
    TidepoolServices services(env, ns);
    SshClient ssh;
    const std::string alice_key = ssh.NewKey("alice");
    ssh.NewKey("mallory");

    // Without the users' Secret nothing of the login pods is applied, and the condition
    // says which Secret is missing.
    Apply(env, ResearchClusterManifest({.ns = ns, .slurm_tag = tag, .login = true}));
    REQUIRE(PollUntil(
        [&] {
          return absl::StrContains(Condition(env, ns, "LoginAvailable", "message"),
                                   "Secret \"research-ssh-keys\" named in "
                                   "spec.login.sshKeysSecret does not exist");
        },
        absl::Seconds(120), absl::Seconds(1)));
    CHECK(Condition(env, ns, "LoginAvailable", "reason") == "LoginUsersInvalid");
    CHECK_FALSE(TryKubectl(env, {"-n", ns, "get", "deployment", "research-login"}).has_value());

    const absl::Time created = absl::Now();
    MustKubectl(env, {"-n", ns, "create", "secret", "generic", "research-ssh-keys",
                      absl::StrCat("--from-file=alice=", alice_key, ".pub")});
    const bool ready = PollUntil(
                           [&] {
                             return Condition(env, ns, "LoginAvailable", "status") == "True" &&
                                    Condition(env, ns, "Ready", "status") == "True";
                           },
                           absl::Seconds(240), absl::Seconds(2))
                           .has_value();
    INFO(
        "pods:\n"
        << TryKubectl(env, {"-n", ns, "get", "pods", "-o", "wide"}).value_or("") << "\ncluster:\n"
        << TryKubectl(env, {"-n", ns, "get", "slurmcluster", "research", "-o", "yaml"}).value_or("")
        << "\nlogin:\n"
        << TryKubectl(env, {"-n", ns, "logs", "deployment/research-login", "--tail=40"})
               .value_or("")
        << "\n"
        << services.Logs());
    REQUIRE(ready);
    WARN("users' Secret created -> LoginAvailable and Ready: "
         << absl::FormatDuration(absl::Now() - created));
    const std::string ip(absl::StripAsciiWhitespace(MustKubectl(
        env, {"-n", ns, "get", "service", "research-login", "-o", "jsonpath={.spec.clusterIP}"})));
    REQUIRE(!ip.empty());

    CommandResult sinfo;
    const bool idle = PollUntil(
                          [&] {
                            sinfo = ssh.Run("alice", "alice", ip, "sinfo -h -o '%P %t %D %N'");
                            return absl::StrContains(sinfo.output, "batch* idle 2 cpu-[01-02]");
                          },
                          absl::Seconds(120), absl::Seconds(2))
                          .has_value();
    INFO("sinfo over ssh: exit " << sinfo.exit_code << "\n" << sinfo.output);
    REQUIRE(idle);

    const CommandResult submitted =
        ssh.Run("alice", "alice", ip, "sbatch --parsable -N2 -o /dev/null --wrap 'srun hostname'");
    INFO("sbatch: " << submitted.output);
    REQUIRE(submitted.exit_code == 0);
    const std::string job(absl::StripAsciiWhitespace(submitted.output));
    std::string state;
    REQUIRE(PollUntil(
        [&] {
          state = ssh.Run("alice", "alice", ip, "scontrol show job " + job).output;
          return absl::StrContains(state, "JobState=COMPLETED") ||
                 absl::StrContains(state, "JobState=FAILED");
        },
        absl::Seconds(90), absl::Seconds(1)));
    INFO(state);
    CHECK(absl::StrContains(state, "JobState=COMPLETED"));
    CHECK(absl::StrContains(state, "UserId=alice(20000)"));
    CHECK(absl::StrContains(state, "NodeList=cpu-[01-02]"));

    // No one else: a user not in the Secret, alice with another key, root.
    for (const auto& [user, key] : std::vector<std::pair<std::string, std::string>>{
             {"mallory", "mallory"}, {"alice", "mallory"}, {"root", "alice"}}) {
      const CommandResult refused = ssh.Run(user, key, ip, "true");
      INFO(user << " with " << key << "'s key: " << refused.output);
      CHECK(refused.exit_code == 255);
      CHECK(absl::StrContains(refused.output, "Permission denied"));
    }

    // A replaced login pod presents the same host key: known_hosts stay valid.
    // Polled: sshd (OpenSSH >= 9.8) turns a source away for a few seconds after the failed
    // logins above (PerSourcePenalties), and all of the host's connections are one source.
    std::string host_key;
    (void)PollUntil(
        [&] {
          host_key = HostKeys(ip);
          return !host_key.empty();
        },
        absl::Seconds(60), absl::Seconds(2));
    INFO("host keys: " << host_key);
    REQUIRE(!host_key.empty());
    CHECK(absl::StartsWith(host_key, ip + " ecdsa-sha2-nistp256 "));  // the cluster's, alone
    const std::string memory =
        TryKubectl(env, {"-n", ns, "exec", "deployment/research-login", "--", "sh", "-c",
                         "ps -eo rss=,comm= | sort -rn | head -20"})
            .value_or("(unknown)");
    WARN("login pod processes (RSS KiB, command) with one user's session closed:\n" << memory);
    const std::string before = LoginPods(env, ns);
    MustKubectl(env,
                {"-n", ns, "delete", "pods", "-l", "tidepool.dev/component=login", "--wait=true"});
    std::string after;
    REQUIRE(PollUntil(
        [&] {
          after = LoginPods(env, ns);
          return absl::StrContains(after, " true") && after != before;
        },
        absl::Seconds(120), absl::Seconds(1)));
    std::string replaced_key;
    REQUIRE(PollUntil(
        [&] {
          replaced_key = HostKeys(ip);
          return !replaced_key.empty();
        },
        absl::Seconds(60), absl::Seconds(1)));
    CHECK(replaced_key == host_key);
    const CommandResult again = ssh.Run("alice", "alice", ip, "id -un", /*strict_host_key=*/true);
    INFO(again.output);
    CHECK(again.exit_code == 0);
    CHECK(absl::StrContains(again.output, "alice"));

    // A key that is no user name: LoginAvailable says which, and what runs stays as it was
    // (noticed at the step's next recheck, the Secret not being watched).
    MustKubectl(env, {"-n", ns, "patch", "secret", "research-ssh-keys", "--type=merge", "-p",
                      R"({"stringData":{"root":"ssh-ed25519 AAAA"}})"});
    REQUIRE(PollUntil(
        [&] { return Condition(env, ns, "LoginAvailable", "reason") == "LoginUsersInvalid"; },
        absl::Seconds(90), absl::Seconds(2)));
    CHECK(absl::StrContains(Condition(env, ns, "LoginAvailable", "message"),
                            "Secret \"research-ssh-keys\" named in spec.login.sshKeysSecret: key "
                            "\"root\" is root or a system account"));
    CHECK(ssh.Run("alice", "alice", ip, "true").exit_code == 0);

    // No login pods asked for any more: the Deployment and Service go, the host key stays.
    MustKubectl(env, {"-n", ns, "patch", "slurmcluster", "research", "--type=merge", "-p",
                      R"({"spec":{"login":{"replicas":0}}})"});
    REQUIRE(PollUntil(
        [&] {
          return !TryKubectl(env, {"-n", ns, "get", "deployment", "research-login"}).has_value() &&
                 !TryKubectl(env, {"-n", ns, "get", "service", "research-login"}).has_value();
        },
        absl::Seconds(30), absl::Seconds(1)));
    CHECK(TryKubectl(env, {"-n", ns, "get", "secret", "research-login-host-keys"}).has_value());
    CHECK(Condition(env, ns, "LoginAvailable", "status").empty());

    MustKubectl(env, {"delete", "namespace", ns, "--wait=true", "--timeout=120s"},
                absl::Seconds(130));
  }
}

}  // namespace
}  // namespace tidepool::testing

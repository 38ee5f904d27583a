// The mission's flow on real kubelet nodes: a SlurmCluster and a NodeSet applied with
// kubectl become a working Slurm cluster made of pods. The four services run as processes
// beside the test (config-renderer, slurm-syncer reaching the cluster's slurmrestd through
// its Service with a token from the cluster's JWT Secret, nodeset-controller,
// cluster-controller); every Slurm daemon runs as a pod from the project's images. A user
// sshes to the login pod, sees the nodes idle and submits a job that runs on both compute
// pods as them and is recorded by slurmdbd (managed MariaDB); a running job survives the
// slurmctld pod's replacement; a slurmConfig change reaches slurmctld and, configless,
// slurmd. Both Slurm versions.
#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "nodes/kubectl_helpers.h"
#include "nodes/research_cluster.h"
#include "nodes/ssh_client.h"
#include "nodes/tidepool_services.h"
#include "support/eventually.h"
#include "support/http_get.h"
#include "support/testenv.h"

namespace tidepool::testing {
namespace {

TEST_CASE("a SlurmCluster and a NodeSet applied become a Slurm cluster of pods that runs jobs") {
  const KubernetesEnv env = RequireKubernetes();
  MustKubectl(env, {"apply", "-f", SourceRoot() + "/manifests/crds"});
  MustKubectl(env, {"wait", "--for=condition=Established", "--timeout=60s", "crd",
                    "slurmclusters.tidepool.dev", "nodesets.tidepool.dev"});
  const std::vector<std::string> tags = SlurmTags(env, SlurmVersions::kAll);
  std::string mariadb;
  for (const std::string& image : ProjectImages(env)) {
    if (absl::StartsWith(image, "localhost/tidepool/mariadb:")) {
      mariadb = std::string(absl::StripPrefix(image, "localhost/tidepool/mariadb:"));
    }
  }
  REQUIRE(!tags.empty());
  REQUIRE(!mariadb.empty());
  for (const std::string& tag : tags) {
    INFO("Slurm " << tag);
    const std::string ns = SlurmTagNamespace("sc", tag);
    EnsureNamespace(env, ns);
    TidepoolServices services(env, ns);
    SshClient ssh;
    const std::string alice_key = ssh.NewKey("alice");
    const absl::Time applied = absl::Now();
    MustKubectl(env, {"-n", ns, "create", "secret", "generic", "research-ssh-keys",
                      absl::StrCat("--from-file=alice=", alice_key, ".pub")});
    Apply(env, ResearchClusterManifest(
                   {.ns = ns, .slurm_tag = tag, .mariadb_tag = mariadb, .login = true}));

    std::string sinfo;
    const bool idle = PollUntil(
                          [&] {
                            sinfo = InController(env, ns, {"sinfo", "-h", "-o", "%P %t %D %N"})
                                        .value_or("(no answer)");
                            return absl::StrContains(sinfo, "batch* idle 2 cpu-[01-02]");
                          },
                          absl::Seconds(240), absl::Seconds(2))
                          .has_value();
    INFO("sinfo: "
         << sinfo << "\npods:\n"
         << TryKubectl(env, {"-n", ns, "get", "pods", "-o", "wide"}).value_or("") << "\ncluster:\n"
         << TryKubectl(env, {"-n", ns, "get", "slurmcluster,nodeset", "-o", "yaml"}).value_or("")
         << "\nslurmctld:\n"
         << TryKubectl(env, {"-n", ns, "logs", "research-controller-0", "--tail=40"}).value_or("")
         << "\n"
         << services.Logs());
    REQUIRE(idle);
    WARN("apply -> both nodes idle in sinfo: " << absl::FormatDuration(absl::Now() - applied));
    const bool ready =
        PollUntil(
            [&] {
              return TryKubectl(env, {"-n", ns, "get", "slurmcluster", "research", "-o",
                                      "jsonpath={.status.conditions[?(@.type==\"Ready\")].status}"})
                         .value_or("") == "True";
            },
            absl::Seconds(180), absl::Seconds(1))
            .has_value();
    INFO("conditions: " << TryKubectl(env, {"-n", ns, "get", "slurmcluster", "research", "-o",
                                            "jsonpath={.status.conditions}"})
                               .value_or("")
                        << "\npods:\n"
                        << TryKubectl(env, {"-n", ns, "get", "pods", "-o", "wide"}).value_or(""));
    REQUIRE(ready);
    WARN("apply -> Ready (slurmdbd, its database and login too): "
         << absl::FormatDuration(absl::Now() - applied));
    // Ready means slurmctld lists the rendered nodes, not only that a reconfigure was sent.
    const std::string config_hash = MustKubectl(
        env, {"-n", ns, "get", "slurmcluster", "research", "-o", "jsonpath={.status.configHash}"});
    const std::string reconfigured_events =
        MustKubectl(env, {"-n", ns, "get", "events", "--field-selector", "reason=Reconfigured",
                          "-o", "jsonpath={.items[*].message}"});
    INFO("Reconfigured events: " << reconfigured_events);
    CHECK(absl::StrContains(reconfigured_events, absl::StrCat("slurmctld runs on ", config_hash)));

    // A user of the cluster logs in through the login Service and submits as themselves.
    const std::string login_ip(absl::StripAsciiWhitespace(MustKubectl(
        env, {"-n", ns, "get", "service", "research-login", "-o", "jsonpath={.spec.clusterIP}"})));
    const CommandResult submitted =
        ssh.Run("alice", "alice", login_ip,
                "sinfo -h -o '%P %t %D %N' && sbatch --parsable -N2 -o /dev/null "
                "--wrap 'srun hostname'");
    INFO("ssh alice@login: " << submitted.output);
    REQUIRE(submitted.exit_code == 0);
    CHECK(absl::StrContains(submitted.output, "batch* idle 2 cpu-[01-02]"));
    const std::vector<std::string> lines =
        absl::StrSplit(submitted.output, '\n', absl::SkipWhitespace());
    REQUIRE(!lines.empty());
    const std::string job(absl::StripAsciiWhitespace(lines.back()));
    REQUIRE(!job.empty());
    std::string state;
    REQUIRE(PollUntil(
        [&] {
          state = InController(env, ns, {"scontrol", "show", "job", job}).value_or("");
          return absl::StrContains(state, "JobState=COMPLETED") ||
                 absl::StrContains(state, "JobState=FAILED");
        },
        absl::Seconds(60), absl::Seconds(1)));
    INFO(state);
    CHECK(absl::StrContains(state, "JobState=COMPLETED"));
    CHECK(absl::StrContains(state, "NodeList=cpu-[01-02]"));
    CHECK(absl::StrContains(state, "UserId=alice(20000)"));

    // slurmctld reports the finished job to slurmdbd, which stores it in MariaDB.
    std::string accounted;
    const bool in_sacct =
        PollUntil(
            [&] {
              accounted =
                  ssh.Run("alice", "alice", login_ip,
                          absl::StrCat("sacct -n -X -P -j ", job, " -o JobID,User,State,NodeList"))
                      .output;
              return absl::StrContains(accounted, "COMPLETED");
            },
            absl::Seconds(60), absl::Seconds(2))
            .has_value();
    INFO("sacct: " << accounted << "\nslurmdbd:\n"
                   << TryKubectl(env, {"-n", ns, "logs", "deploy/research-accounting", "--tail=30"})
                          .value_or(""));
    REQUIRE(in_sacct);
    CHECK(absl::StrContains(accounted, job + "|alice|COMPLETED|cpu-[01-02]"));

    // sbatch in the controller pod, then until the job runs: its id.
    const auto running_job = [&](const std::vector<std::string>& sbatch) {
      const std::string job(absl::StripAsciiWhitespace(InController(env, ns, sbatch).value_or("")));
      REQUIRE(!job.empty());
      REQUIRE(PollUntil(
          [&] {
            return absl::StrContains(
                InController(env, ns, {"scontrol", "show", "job", job}).value_or(""),
                "JobState=RUNNING");
          },
          absl::Seconds(30), absl::Seconds(1)));
      return job;
    };
    // Until the job is in a final state (in `state`), at most `timeout`.
    const auto job_ended = [&](const std::string& job, absl::Duration timeout) {
      return PollUntil(
                 [&] {
                   state = InController(env, ns, {"scontrol", "show", "job", job}).value_or("");
                   return absl::StrContains(state, "JobState=COMPLETED") ||
                          absl::StrContains(state, "JobState=FAILED") ||
                          absl::StrContains(state, "JobState=NODE_FAIL") ||
                          absl::StrContains(state, "JobState=CANCELLED");
                 },
                 timeout, absl::Seconds(2))
          .has_value();
    };

    // A job survives slurmctld's pod being replaced mid-run (its state is on the claim).
    const std::string long_job =
        running_job({"sbatch", "--parsable", "-N1", "-o", "/dev/null", "--wrap", "sleep 20"});
    MustKubectl(env, {"-n", ns, "delete", "pod", "research-controller-0", "--wait=true"});
    const bool finished = job_ended(long_job, absl::Seconds(120));
    INFO(state);
    REQUIRE(finished);
    CHECK(absl::StrContains(state, "JobState=COMPLETED"));

    // A job survives slurmd dying under it (a crash, the OOM killer): the pod's entrypoint
    // starts slurmd again in place while the job's steps run, and slurmd reconnects to
    // them. Were slurmd the container's first process, the container and the job would end.
    const auto slurmd_of_cpu02 = [&] {
      return std::string(
          absl::StripAsciiWhitespace(TryKubectl(env, {"-n", ns, "exec", "cpu-02", "-c", "slurmd",
                                                      "--", "pgrep", "-x", "slurmd"})
                                         .value_or("")));
    };
    const auto restarts_of_cpu02 = [&] {
      return MustKubectl(env, {"-n", ns, "get", "pod", "cpu-02", "-o",
                               "jsonpath={.status.containerStatuses[?(@.name==\"slurmd\")]"
                               ".restartCount}"});
    };
    const std::string restarts_before = restarts_of_cpu02();
    const std::string crash_job = running_job(
        {"sbatch", "--parsable", "-w", "cpu-02", "-N1", "-o", "/dev/null", "--wrap", "sleep 20"});
    const std::string slurmd_before = slurmd_of_cpu02();
    REQUIRE(!slurmd_before.empty());
    MustKubectl(
        env, {"-n", ns, "exec", "cpu-02", "-c", "slurmd", "--", "pkill", "-KILL", "-x", "slurmd"});
    std::string slurmd_after;
    const bool slurmd_back = PollUntil(
                                 [&] {
                                   slurmd_after = slurmd_of_cpu02();
                                   return !slurmd_after.empty() && slurmd_after != slurmd_before;
                                 },
                                 absl::Seconds(20), absl::Seconds(1))
                                 .has_value();
    const std::string slurmd_log =
        TryKubectl(env, {"-n", ns, "logs", "cpu-02", "-c", "slurmd", "--tail=20"}).value_or("");
    INFO("slurmd " << slurmd_before << " -> " << slurmd_after << "; its log:\n" << slurmd_log);
    CHECK(slurmd_back);
    CHECK(absl::StrContains(slurmd_log, "job step processes run here; starting it again"));
    const bool crash_job_ended = job_ended(crash_job, absl::Seconds(90));
    INFO(state);
    REQUIRE(crash_job_ended);
    CHECK(absl::StrContains(state, "JobState=COMPLETED"));
    CHECK(restarts_of_cpu02() == restarts_before);
    // With no job step left, a slurmd that dies ends the container, and kubelet restarts it
    // as it would any other (nothing in the pod to keep).
    const auto steps_on_cpu02 = [&] {
      return TryKubectl(env, {"-n", ns, "exec", "cpu-02", "-c", "slurmd", "--", "sh", "-c",
                              "pgrep -x slurmstepd || true"})
          .value_or("?");
    };
    REQUIRE(
        PollUntil([&] { return steps_on_cpu02().empty(); }, absl::Seconds(30), absl::Seconds(1)));
    // The exec may end with its container: the restart count tells what happened.
    (void)TryKubectl(
        env, {"-n", ns, "exec", "cpu-02", "-c", "slurmd", "--", "pkill", "-KILL", "-x", "slurmd"});
    const bool restarted =
        PollUntil(
            [&] { return restarts_of_cpu02() != restarts_before && !slurmd_of_cpu02().empty(); },
            absl::Seconds(60), absl::Seconds(1))
            .has_value();
    const std::string previous_log =
        TryKubectl(env, {"-n", ns, "logs", "cpu-02", "-c", "slurmd", "--previous", "--tail=5"})
            .value_or("");
    INFO("restarts " << restarts_before << " -> " << restarts_of_cpu02()
                     << "; the last container's log:\n"
                     << previous_log);
    CHECK(restarted);
    CHECK(absl::StrContains(previous_log, "no job step runs here; exiting"));

    // A changed slurmConfig reaches the running slurmctld (through the ConfigMap, kubelet
    // and a reconfigure).
    MustKubectl(env, {"-n", ns, "patch", "slurmcluster", "research", "--type=merge", "-p",
                      R"({"spec":{"slurmConfig":{"DefMemPerCPU":"1234"}}})"});
    std::string config;
    const bool reconfigured =
        PollUntil(
            [&] {
              config = InController(env, ns, {"scontrol", "show", "config"}).value_or("");
              return absl::StrContains(config, "DefMemPerCPU            = 1234");
            },
            absl::Seconds(60), absl::Seconds(1))
            .has_value();
    INFO(services.Logs());
    CHECK(reconfigured);
    // slurmd is configless: the reconfigure gave it the new file from slurmctld, without
    // waiting for kubelet to refresh the pod's ConfigMap.
    std::string cached;
    const bool slurmd_has_it =
        PollUntil(
            [&] {
              cached = TryKubectl(env, {"-n", ns, "exec", "cpu-01", "--", "sh", "-c",
                                        "cat /run/slurm/conf/slurm.conf "
                                        "/var/spool/slurmd/conf-cache/slurm.conf 2>/dev/null"})
                           .value_or("");
              return absl::StrContains(cached, "DefMemPerCPU=1234");
            },
            absl::Seconds(15), absl::Seconds(1))
            .has_value();
    INFO("slurmd's cached slurm.conf:\n" << cached);
    CHECK(slurmd_has_it);

    // slurmrestd's certificate replaced by deleting its Secret: the cluster-controller makes
    // a new one and rolls the slurmrestd pods, and slurm-syncer, refused by the new
    // certificate, reads the new CA and connects again (the drain below goes through it).
    const auto served_digest = [&] {
      return TryKubectl(env, {"-n", ns, "get", "deployment", "research-restapi", "-o",
                              "jsonpath={.spec.template.metadata.annotations.tidepool\\.dev/"
                              "tls-cert-digest}"})
          .value_or("");
    };
    const auto connections = [&] {
      return services.Logged("slurm-syncer", "slurmrestd_connected");
    };
    const auto secret_ca = [&] {
      std::string ca;
      REQUIRE(
          absl::Base64Unescape(MustKubectl(env, {"-n", ns, "get", "secret", "research-restapi-tls",
                                                 "-o", R"(jsonpath={.data.ca\.crt})"}),
                               &ca));
      return ca;
    };
    // A TLS handshake with slurmrestd through its Service, trusting `ca` only.
    const auto handshake = [&](const std::string& ca) {
      const std::string ip = MustKubectl(env, {"-n", ns, "get", "service", "research-restapi", "-o",
                                               "jsonpath={.spec.clusterIP}"});
      const std::string host = absl::StrCat("research-restapi.", ns, ".svc");
      return HttpGet(absl::StrCat("https://", host, ":6820/openapi/v3"), absl::Seconds(5), {},
                     {.ca_pem = ca, .connect_to = absl::StrCat(host, ":6820:", ip, ":6820")});
    };
    const std::string ca_before = secret_ca();
    const std::string digest_before = served_digest();
    REQUIRE(absl::StartsWith(digest_before, "sha256:"));
    const int connections_before = connections();
    MustKubectl(env, {"-n", ns, "delete", "secret", "research-restapi-tls"});
    const bool rotated = PollUntil(
                             [&] {
                               const std::string now = served_digest();
                               return absl::StartsWith(now, "sha256:") && now != digest_before;
                             },
                             absl::Seconds(90), absl::Seconds(1))
                             .has_value();
    INFO(services.Logs());
    REQUIRE(rotated);
    MustKubectl(env,
                {"-n", ns, "rollout", "status", "deployment/research-restapi", "--timeout=120s"},
                absl::Seconds(130));
    // The new pods serve the new certificate, even on a node where an old pod mounted the
    // deleted Secret (kubelet keeps a deleted immutable Secret for new pods there).
    const std::string ca_after = secret_ca();
    REQUIRE(ca_after != ca_before);
    // (Polled only for kube-proxy to drop the old pod: a stale certificate would stay.)
    absl::StatusOr<HttpResponse> with_new_ca;
    const bool new_ca_only = PollUntil(
                                 [&] {
                                   with_new_ca = handshake(ca_after);
                                   return with_new_ca.ok() && !handshake(ca_before).ok();
                                 },
                                 absl::Seconds(20), absl::Seconds(1))
                                 .has_value();
    INFO((with_new_ca.ok() ? std::string("answered") : with_new_ca.status().ToString()));
    CHECK(new_ca_only);
    const bool reconnected = PollUntil([&] { return connections() > connections_before; },
                                       absl::Seconds(60), absl::Seconds(1))
                                 .has_value();
    INFO("slurm-syncer's slurmrestd lines:\n" << services.LinesWith("slurm-syncer", "slurmrestd"));
    INFO(TryKubectl(env, {"-n", ns, "get", "pods,endpointslices", "-o", "wide"}).value_or(""));
    CHECK(reconnected);

    // `kubectl drain` of a Node waits for the jobs on its slurmd pod: the cordon drains the
    // Slurm node, the compute PodDisruptionBudget refuses the eviction while the pod is
    // Ready (its SlurmNodeInUse gate True), and lets it through once the node is idle.
    const std::string kube_node(absl::StripAsciiWhitespace(
        MustKubectl(env, {"-n", ns, "get", "pod", "cpu-01", "-o", "jsonpath={.spec.nodeName}"})));
    REQUIRE(!kube_node.empty());
    const auto in_use = [&] {
      return TryKubectl(env,
                        {"-n", ns, "get", "pod", "cpu-01", "-o",
                         "jsonpath={.status.conditions[?(@.type==\"tidepool.dev/SlurmNodeInUse\")]"
                         ".status}/{.status.conditions[?(@.type==\"Ready\")].status}/"
                         "{.metadata.uid}"})
          .value_or("");
    };
    REQUIRE(PollUntil([&] { return absl::StartsWith(in_use(), "True/True/"); }, absl::Seconds(60),
                      absl::Seconds(1)));
    const std::string uid_before = in_use().substr(10);
    const std::string held_job = running_job(
        {"sbatch", "--parsable", "-w", "cpu-01", "-N1", "-o", "/dev/null", "--wrap", "sleep 25"});
    const std::vector<std::string> drain = {
        "drain", kube_node, "--pod-selector",
        "tidepool.dev/cluster=research,tidepool.dev/component=slurmd", "--delete-emptydir-data"};
    std::vector<std::string> refused_drain = drain;
    refused_drain.push_back("--timeout=12s");
    const std::string before_drain =
        TryKubectl(env, {"-n", ns, "get", "pdb,pod", "-o", "yaml"}).value_or("");
    // What the pod's readiness was while the drain ran, for a failure's message.
    std::string readiness_seen;
    std::atomic<bool> draining_done = false;
    std::thread watcher([&] {
      while (!draining_done) {
        absl::StrAppend(&readiness_seen,
                        absl::FormatTime("%H:%M:%E3S ", absl::Now(), absl::UTCTimeZone()),
                        TryKubectl(env, {"-n", ns, "get", "pod", "cpu-01", "-o",
                                         "jsonpath={.metadata.deletionTimestamp} {range "
                                         ".status.conditions[*]}{.type}={.status}/{.reason} "
                                         "{end}"})
                            .value_or("(no answer)"),
                        "\n");
        absl::SleepFor(absl::Milliseconds(200));
      }
    });
    absl::StatusOr<CommandResult> refused = Kubectl(env, refused_drain, absl::Seconds(60));
    draining_done = true;
    watcher.join();
    INFO("cpu-01 during the drain:\n" << readiness_seen);
    REQUIRE(refused.ok());
    INFO("kubectl drain while the job runs: " << refused->output);
    INFO("budgets and pods before the drain:\n" << before_drain);
    CHECK(refused->exit_code != 0);
    CHECK(absl::StrContains(refused->output, "disruption budget"));
    state = InController(env, ns, {"scontrol", "show", "job", held_job}).value_or("");
    CHECK(absl::StrContains(state, "JobState=RUNNING"));
    const std::string draining =
        InController(env, ns, {"scontrol", "show", "node", "cpu-01"}).value_or("");
    INFO(draining);
    CHECK(absl::StrContains(draining, "+DRAIN"));
    CHECK(absl::StrContains(draining, "Reason=k8s: cordon"));
    // Once the job is done the same drain goes through, and the job was not cut short.
    std::vector<std::string> allowed_drain = drain;
    allowed_drain.push_back("--timeout=120s");
    absl::StatusOr<CommandResult> allowed = Kubectl(env, allowed_drain, absl::Seconds(150));
    REQUIRE(allowed.ok());
    INFO("kubectl drain after the job: " << allowed->output << "\n" << services.Logs());
    CHECK(allowed->exit_code == 0);
    state = InController(env, ns, {"scontrol", "show", "job", held_job}).value_or("");
    INFO(state);
    CHECK(absl::StrContains(state, "JobState=COMPLETED"));
    // The nodeset-controller makes the pod again (as a DaemonSet would); uncordoned, its
    // node is back in service.
    MustKubectl(env, {"uncordon", kube_node});
    const bool back =
        PollUntil(
            [&] {
              const std::string now = in_use();
              return absl::StartsWith(now, "True/True/") && now.substr(10) != uid_before &&
                     absl::StrContains(
                         InController(env, ns, {"sinfo", "-h", "-n", "cpu-01", "-o", "%t"})
                             .value_or(""),
                         "idle");
            },
            absl::Seconds(120), absl::Seconds(2))
            .has_value();
    INFO("cpu-01: " << in_use() << "\n"
                    << InController(env, ns, {"scontrol", "show", "node", "cpu-01"}).value_or(""));
    CHECK(back);

    // A node a person set DOWN stays DOWN when its slurmd registers again (here slurmd
    // restarted; every reconfigure restarts slurmctld, which asks each node to register).
    const auto node_line = [&](absl::string_view key) {
      const std::string shown =
          InController(env, ns, {"scontrol", "show", "node", "cpu-02"}).value_or("");
      for (absl::string_view field : absl::StrSplit(shown, absl::ByAnyChar(" \n"))) {
        if (absl::StartsWith(field, key)) return std::string(field);
      }
      return std::string();
    };
    REQUIRE(InController(
                env, ns,
                {"scontrol", "update", "nodename=cpu-02", "state=down", "reason=bad_GPU_ticket_7"})
                .has_value());
    const std::string started_before = node_line("SlurmdStartTime=");
    REQUIRE(!started_before.empty());
    TryKubectl(env, {"-n", ns, "exec", "cpu-02", "-c", "slurmd", "--", "sh", "-c", "kill 1"});
    const bool registered_again = PollUntil(
                                      [&] {
                                        const std::string started = node_line("SlurmdStartTime=");
                                        return !started.empty() && started != started_before &&
                                               !absl::StrContains(node_line("State="), "*");
                                      },
                                      absl::Seconds(120), absl::Seconds(2))
                                      .has_value();
    INFO(InController(env, ns, {"scontrol", "show", "node", "cpu-02"}).value_or(""));
    REQUIRE(registered_again);
    CHECK(absl::StartsWith(node_line("State="), "State=DOWN"));
    CHECK(node_line("Reason=") == "Reason=bad_GPU_ticket_7");
    InController(env, ns, {"scontrol", "update", "nodename=cpu-02", "state=resume"});

    MustKubectl(env, {"delete", "namespace", ns, "--wait=true", "--timeout=120s"},
                absl::Seconds(130));
  }
}

}  // namespace
}  // namespace tidepool::testing

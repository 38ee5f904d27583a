// The Helm charts on real kubelet nodes, with the real helm: the umbrella chart installs the
// CRDs and the five services as pods from the project's images (two replicas each behind
// their Leases, wired to each other by Service name, under the charts' own RBAC); the
// slurm-cluster chart makes a SlurmCluster and its NodeSet from values. The cluster comes
// up idle in sinfo on the login pod, a batch job runs on both nodes, a pod placed through
// Slurm runs, a helm upgrade rolls the services without disturbing Slurm, renewed gRPC
// certificates (the Secrets deleted and upgraded) reach the running pods without a restart,
// and both uninstalls leave nothing behind. Newest Slurm version only.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "nodes/kubectl_helpers.h"
#include "support/eventually.h"
#include "support/testenv.h"

namespace tidepool::testing {
namespace {

namespace fs = std::filesystem;

constexpr char kServicesNamespace[] = "tidepool-charts";
const char* const kServices[] = {"config-renderer", "slurm-syncer", "nodeset-controller",
                                 "cluster-controller", "pod-scheduler"};

std::string Trimmed(absl::string_view text) {
  return std::string(absl::StripAsciiWhitespace(text));
}

CommandResult MustCommand(const std::vector<std::string>& argv, absl::Duration timeout) {
  absl::StatusOr<CommandResult> result = RunCommand(argv, timeout);
  INFO(argv[0] << " " << (argv.size() > 1 ? argv[1] : ""));
  REQUIRE(result.ok());
  INFO(result->output);
  REQUIRE(result->exit_code == 0);
  return *result;
}

// The helm of tools/testenv/k8s (built when the cache lacks it).
std::string Helm() {
  absl::StatusOr<std::string> helm = TestenvTool("helm");
  INFO(helm.status());
  REQUIRE(helm.ok());
  return *helm;
}

// charts/ copied (helm dependency build writes into a chart; the copy follows the links
// to manifests/crds and to the library chart), the umbrella's dependencies built: the one
// step the README asks of a user.
std::string ChartsCopy(const std::string& helm) {
  const std::string copy = absl::StrCat(TestenvRunDir(), "/charts-test-", getpid());
  std::error_code error;
  fs::remove_all(copy, error);
  fs::copy(SourceRoot() + "/charts", copy, fs::copy_options::recursive, error);
  REQUIRE_FALSE(error);
  MustCommand({helm, "dependency", "build", copy + "/tidepool"}, absl::Minutes(2));
  return copy;
}

// The slurm-cluster chart's values for the test nodes: the project's images, a login key,
// cgroup-free Slurm plugins (the hosts may have cgroup v1), small volumes.
std::string ClusterValues(const std::string& tag, const std::string& mariadb_tag,
                          const std::string& public_key) {
  return absl::StrCat(R"(images:
  registry: localhost/tidepool
  slurmTag: ")",
                      tag, R"("
  mariadbTag: ")",
                      mariadb_tag, R"("
sshAuthorizedKeys:
  researcher: ")",
                      public_key, R"("
spec:
  controller: {stateSave: {size: 1Gi}}
  accounting: {enabled: true, managed: {size: 1Gi}}
  login: {replicas: 1}
  podScheduler: {enabled: true, schedulerName: tidepool}
  partitions: [{name: batch, nodeSets: [cpu], default: true}]
  slurmConfig: {ProctrackType: proctrack/linuxproc, TaskPlugin: task/none}
nodeSets:
  - name: cpu
    spec:
      nodeSelector: {tidepool.dev/testenv-node: "true"}
      template:
        spec:
          terminationGracePeriodSeconds: 5
          containers: [{name: slurmd, imagePullPolicy: Never}]
)");
}

std::string MariadbTag(const KubernetesEnv& env) {
  for (const std::string& image : ProjectImages(env)) {
    if (absl::StartsWith(image, "localhost/tidepool/mariadb:")) {
      return image.substr(std::string("localhost/tidepool/mariadb:").size());
    }
  }
  FAIL("the nodes carry no localhost/tidepool/mariadb image");
  return "";
}

std::string PublicKey(const std::string& dir) {
  const std::string key = dir + "/id_ed25519";
  MustCommand(
      {"/usr/bin/ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "researcher", "-f", key},
      absl::Seconds(30));
  std::ifstream in(key + ".pub");
  std::string line;
  std::getline(in, line);
  return line;
}

// "name ready/wanted" of each service Deployment, e.g. "slurm-syncer 2/2".
std::string DeploymentsReady(const KubernetesEnv& env) {
  return TryKubectl(env, {"-n", kServicesNamespace, "get", "deployments", "-o",
                          "jsonpath={range .items[*]}{.metadata.name} "
                          "{.status.updatedReplicas}/{.status.readyReplicas}/"
                          "{.spec.replicas}{\"\\n\"}{end}"})
      .value_or("");
}

bool AllServicesReady(const KubernetesEnv& env) {
  const std::string ready = DeploymentsReady(env);
  for (const char* service : kServices) {
    if (!absl::StrContains(ready, absl::StrCat(service, " 2/2/2"))) return false;
  }
  return true;
}

std::string LoginPod(const KubernetesEnv& env, const std::string& ns) {
  return Trimmed(TryKubectl(env, {"-n", ns, "get", "pods", "-l", "tidepool.dev/component=login",
                                  "-o", "jsonpath={.items[0].metadata.name}"})
                     .value_or(""));
}

std::string Sinfo(const KubernetesEnv& env, const std::string& ns) {
  const std::string login = LoginPod(env, ns);
  if (login.empty()) return "";
  return TryKubectl(env, {"-n", ns, "exec", login, "--", "sinfo", "-h", "-o", "%P %t %D %N"})
      .value_or("");
}

std::string State(const KubernetesEnv& env, const std::string& ns) {
  return absl::StrCat(
      "deployments (updated/ready/wanted):\n", DeploymentsReady(env), "\npods:\n",
      TryKubectl(env, {"get", "pods", "-A", "-o", "wide"}).value_or(""), "\nslurmcluster:\n",
      TryKubectl(
          env, {"-n", ns, "get", "slurmcluster", "research", "-o", "jsonpath={.status.conditions}"})
          .value_or(""),
      "\nsinfo: ", Sinfo(env, ns));
}

// The logs of each service's pods, for a failure's message.
std::string ServiceLogs(const KubernetesEnv& env) {
  std::string logs;
  for (const char* service : kServices) {
    absl::StrAppend(&logs, "--- ", service, "\n",
                    TryKubectl(env, {"-n", kServicesNamespace, "logs", "--tail=15", "--prefix",
                                     "-l", absl::StrCat("app.kubernetes.io/name=", service)})
                        .value_or("(no logs)"));
  }
  return logs;
}

// Each controller's Lease, held by one of its pods.
void CheckLeadersArePods(const KubernetesEnv& env) {
  const std::string pods = MustKubectl(
      env, {"-n", kServicesNamespace, "get", "pods", "-o", "jsonpath={.items[*].metadata.name}"});
  for (const char* lease :
       {"slurm-syncer", "nodeset-controller", "cluster-controller", "pod-scheduler"}) {
    CAPTURE(lease);
    const std::string holder =
        Trimmed(MustKubectl(env, {"-n", kServicesNamespace, "get", "lease", lease, "-o",
                                  "jsonpath={.spec.holderIdentity}"}));
    INFO("holder " << holder << ", pods " << pods);
    CHECK(!holder.empty());
    CHECK(absl::StrContains(pods, holder.substr(0, holder.find('_'))));
  }
}

// nodeset-controller's gate guard runs on its leader and, now, sees slurm-syncer lead: each
// slurm_syncer_absent it logged was followed by a slurm_syncer_back (per pod they
// alternate, so equal counts over both pods mean neither holds gates now). Looked for in the
// wrong namespace, the Lease is never found and the gates stay held.
void CheckGateGuardSeesSyncer(const KubernetesEnv& env) {
  const std::string logs =
      MustKubectl(env, {"-n", kServicesNamespace, "logs", "--tail=-1", "--prefix", "-l",
                        "app.kubernetes.io/name=nodeset-controller"});
  const auto count = [&](const std::string& event) {
    int n = 0;
    for (size_t at = logs.find(event); at != std::string::npos; at = logs.find(event, at + 1)) ++n;
    return n;
  };
  INFO(logs.substr(logs.size() > 6000 ? logs.size() - 6000 : 0));
  CHECK(absl::StrContains(logs, "controller=gate-guard"));
  CHECK(count("event=slurm_syncer_absent") == count("event=slurm_syncer_back"));
  CHECK(count("event=syncer_lease_unread") == 0);
  if (count("event=slurm_syncer_absent") > 0) {
    WARN("gate guard saw slurm-syncer absent " << count("event=slurm_syncer_absent")
                                               << " time(s), and back each time");
  }
}

// A batch job as root from the controller pod, on both compute pods, to its end.
void RunBatchJob(const KubernetesEnv& env, const std::string& ns) {
  const std::string job = Trimmed(MustKubectl(
      env, {"-n", ns, "exec", "research-controller-0", "-c", "slurmctld", "--", "sbatch",
            "--parsable", "-N2", "-o", "/dev/null", "--wrap", "srun hostname"}));
  std::string state;
  const bool ended = PollUntil(
                         [&] {
                           state =
                               TryKubectl(env, {"-n", ns, "exec", "research-controller-0", "-c",
                                                "slurmctld", "--", "scontrol", "show", "job", job})
                                   .value_or("");
                           return absl::StrContains(state, "JobState=COMPLETED") ||
                                  absl::StrContains(state, "JobState=FAILED");
                         },
                         absl::Seconds(90), absl::Seconds(1))
                         .has_value();
  INFO(state);
  REQUIRE(ended);
  CHECK(absl::StrContains(state, "JobState=COMPLETED"));
  CHECK(absl::StrContains(state, "NodeList=cpu-[01-02]"));
}

// A pod naming the cluster's scheduler: its job through pod-scheduler -> slurm-syncer ->
// slurmrestd, all pods, then Running on a compute pod's Node.
void RunPodThroughSlurm(const KubernetesEnv& env, const std::string& ns) {
  Apply(env, absl::StrCat(R"(apiVersion: v1
kind: Pod
metadata: {name: placed, namespace: )",
                          ns, R"(}
spec:
  schedulerName: tidepool
  terminationGracePeriodSeconds: 1
  containers:
    - name: main
      image: localhost/tidepool/pause:dev
      imagePullPolicy: Never
      resources: {requests: {cpu: 100m, memory: 16Mi}}
)"));
  std::string phase;
  const bool running =
      PollUntil(
          [&] {
            phase = TryKubectl(env, {"-n", ns, "get", "pod", "placed", "-o",
                                     "jsonpath={.status.phase} {.metadata.annotations}"})
                        .value_or("");
            return absl::StartsWith(phase, "Running");
          },
          absl::Seconds(90), absl::Milliseconds(500))
          .has_value();
  INFO(phase << "\n" << ServiceLogs(env));
  REQUIRE(running);
  CHECK(absl::StrContains(phase, "tidepool.dev/slurm-job-id"));
  MustKubectl(env, {"-n", ns, "delete", "pod", "placed", "--wait=true"});
}

// The services' pods not being deleted (a replaced pod stays listed while it terminates).
std::vector<std::string> LivePods(const KubernetesEnv& env) {
  const std::string listed = MustKubectl(
      env,
      {"-n", kServicesNamespace, "get", "pods", "-o",
       "jsonpath={range .items[*]}{.metadata.name} {.metadata.deletionTimestamp}{\"\\n\"}{end}"});
  std::vector<std::string> live;
  for (absl::string_view line : absl::StrSplit(listed, '\n', absl::SkipWhitespace())) {
    const std::vector<std::string> fields = absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (fields.size() == 1) live.push_back(fields[0]);
  }
  return live;
}

void Upgrade(const KubernetesEnv& env, const std::string& helm, const std::string& umbrella) {
  const std::vector<std::string> before = LivePods(env);
  MustCommand({helm, "upgrade", "tidepool", umbrella, "-n", kServicesNamespace, "--reuse-values",
               "--set", "slurm-syncer.logLevel=debug", "--set", "nodeset-controller.logLevel=debug",
               "--wait", "--timeout", "5m", "--kubeconfig", env.kubeconfig},
              absl::Minutes(6));
  REQUIRE(PollUntil([&] { return AllServicesReady(env); }, absl::Minutes(3), absl::Seconds(1)));
  // The two upgraded charts replaced their pods; the others kept theirs.
  for (const std::string& pod : before) {
    const bool upgraded =
        absl::StartsWith(pod, "slurm-syncer-") || absl::StartsWith(pod, "nodeset-controller-");
    CAPTURE(pod);
    const auto gone = [&] {
      const std::vector<std::string> live = LivePods(env);
      return std::find(live.begin(), live.end(), pod) == live.end();
    };
    if (upgraded) {
      CHECK(PollUntil(gone, absl::Minutes(1), absl::Seconds(1)).has_value());
    } else {
      CHECK_FALSE(gone());
    }
  }
  CHECK(absl::StrContains(MustKubectl(env, {"-n", kServicesNamespace, "get", "deployment",
                                            "slurm-syncer", "-o", "yaml"}),
                          "--log_level=debug"));
}

// The restart counts of these pods, each named ("pod: 0 0"). Only named pods: a pod that
// comes or goes meanwhile (a hook's) would change a count of all of them without any
// restart. One read per pod: `get` of a single name answers with the Pod, not a List, so a
// List's jsonpath would read nothing and compare equal.
std::string RestartCounts(const KubernetesEnv& env, const std::vector<std::string>& pods) {
  REQUIRE_FALSE(pods.empty());
  std::string counts;
  for (const std::string& pod : pods) {
    const std::string restarts =
        Trimmed(MustKubectl(env, {"-n", kServicesNamespace, "get", "pod", pod, "-o",
                                  "jsonpath={.status.containerStatuses[*].restartCount}"}));
    REQUIRE_FALSE(restarts.empty());
    absl::StrAppend(&counts, pod, ": ", restarts, "\n");
  }
  return counts;
}

// The README's renewal: delete the gRPC Secrets (the CA too) and upgrade. The chart makes a
// new CA and certificates; kubelet brings them into the running pods, which read them again
// without a restart. Then slurm-syncer restarts and presents only the new CA: its callers,
// still the same pods, reach it only if they present their renewed certificates.
void RenewCertificates(const KubernetesEnv& env, const std::string& helm,
                       const std::string& umbrella, const std::string& ns) {
  const std::vector<std::string> before = LivePods(env);
  const std::string restarts = RestartCounts(env, before);
  std::vector<std::string> remove = {"-n", kServicesNamespace, "delete", "secret",
                                     "tidepool-grpc-ca"};
  for (const char* service : kServices) remove.push_back(absl::StrCat("tidepool-grpc-", service));
  MustKubectl(env, remove);
  const absl::Time started = absl::Now();
  MustCommand({helm, "upgrade", "tidepool", umbrella, "-n", kServicesNamespace, "--reuse-values",
               "--wait", "--timeout", "5m", "--kubeconfig", env.kubeconfig},
              absl::Minutes(6));
  std::vector<std::string> waiting;
  const bool renewed =
      PollUntil(
          [&] {
            waiting.clear();
            for (const std::string& pod : before) {
              const std::string logs =
                  TryKubectl(env, {"-n", kServicesNamespace, "logs", pod}).value_or("");
              if (!absl::StrContains(logs, "event=grpc_tls_renewed")) waiting.push_back(pod);
            }
            return waiting.empty();
          },
          absl::Minutes(4), absl::Seconds(5))
          .has_value();
  INFO("not renewed: " << absl::StrJoin(waiting, " ") << "\n" << ServiceLogs(env));
  REQUIRE(renewed);
  WARN("gRPC Secrets deleted and upgraded -> every service pod read its renewed certificate: "
       << absl::FormatDuration(absl::Now() - started));
  std::vector<std::string> after = LivePods(env);
  std::vector<std::string> expected = before;
  std::sort(after.begin(), after.end());
  std::sort(expected.begin(), expected.end());
  CHECK(after == expected);
  CHECK(RestartCounts(env, before) == restarts);

  MustKubectl(env, {"-n", kServicesNamespace, "rollout", "restart", "deployment/slurm-syncer"});
  MustKubectl(
      env,
      {"-n", kServicesNamespace, "rollout", "status", "deployment/slurm-syncer", "--timeout=3m"},
      absl::Minutes(4));
  RunPodThroughSlurm(env, ns);
}

TEST_CASE("the charts install Tidepool and a Slurm cluster with helm, upgrade and uninstall") {
  const KubernetesEnv env = RequireKubernetes();
  const std::vector<std::string> tags = SlurmTags(env, SlurmVersions::kNewest);
  REQUIRE(!tags.empty());
  const std::string tag = tags.back();
  const std::string ns = SlurmTagNamespace("charts", tag);
  const std::string helm = Helm();
  const std::string charts = ChartsCopy(helm);
  const std::string values_file = charts + "/cluster-values.yaml";
  std::ofstream(values_file) << ClusterValues(tag, MariadbTag(env), PublicKey(charts));
  EnsureNamespace(env, kServicesNamespace);
  EnsureNamespace(env, ns);

  const absl::Time started = absl::Now();
  MustCommand({helm, "install", "tidepool", charts + "/tidepool", "-n", kServicesNamespace, "--set",
               "global.image.registry=localhost/tidepool", "--set", "global.image.tag=dev", "--set",
               "global.image.pullPolicy=Never", "--set",
               absl::StrCat("global.slurmCluster=", ns, "/research"), "--set",
               "cluster-controller.cgroupPlugin=disabled", "--kubeconfig", env.kubeconfig},
              absl::Minutes(3));
  MustCommand({helm, "install", "research", charts + "/slurm-cluster", "-n", ns, "-f", values_file,
               "--kubeconfig", env.kubeconfig},
              absl::Minutes(2));
  const bool idle = PollUntil(
                        [&] {
                          return AllServicesReady(env) &&
                                 absl::StrContains(Sinfo(env, ns), "batch* idle 2 cpu-[01-02]");
                        },
                        absl::Minutes(6), absl::Seconds(2))
                        .has_value();
  INFO(State(env, ns) << "\n" << ServiceLogs(env));
  REQUIRE(idle);
  WARN("helm install -> services ready and both nodes idle in sinfo on the login pod: "
       << absl::FormatDuration(absl::Now() - started));
  CHECK(absl::StrContains(MustKubectl(env, {"-n", ns, "get", "nodesets"}), "cpu"));
  CheckLeadersArePods(env);
  RunBatchJob(env, ns);
  RunPodThroughSlurm(env, ns);
  CheckGateGuardSeesSyncer(env);

  Upgrade(env, helm, charts + "/tidepool");
  REQUIRE(PollUntil([&] { return absl::StrContains(Sinfo(env, ns), "batch* idle 2 cpu-[01-02]"); },
                    absl::Minutes(2), absl::Seconds(2)));
  RunBatchJob(env, ns);
  // Both upgraded at once: the new nodeset-controller's guard watched slurm-syncer's rollout.
  CheckGateGuardSeesSyncer(env);
  RenewCertificates(env, helm, charts + "/tidepool", ns);

  // The cluster first, while the controllers that tear it down still run.
  MustCommand({helm, "uninstall", "research", "-n", ns, "--wait", "--timeout", "5m", "--kubeconfig",
               env.kubeconfig},
              absl::Minutes(6));
  REQUIRE(PollUntil(
      [&] {
        return Trimmed(
                   TryKubectl(env, {"-n", ns, "get", "pods,slurmclusters,nodesets", "-o", "name"})
                       .value_or("x"))
            .empty();
      },
      absl::Minutes(3), absl::Seconds(2)));
  MustCommand({helm, "uninstall", "tidepool", "-n", kServicesNamespace, "--wait", "--timeout", "3m",
               "--kubeconfig", env.kubeconfig},
              absl::Minutes(4));
  CHECK(PollUntil(
      [&] {
        return Trimmed(TryKubectl(env,
                                  {"-n", kServicesNamespace, "get",
                                   "pods,deployments,services,serviceaccounts,roles", "-o", "name"})
                           .value_or("x")) == "serviceaccount/default";
      },
      absl::Minutes(2), absl::Seconds(2)));
  CHECK(Trimmed(MustKubectl(env, {"get", "clusterroles", "-o", "name"}))
            .find(absl::StrCat("tidepool-", kServicesNamespace)) == std::string::npos);
  // Gone before the next run applies them again.
  MustKubectl(env, {"delete", "namespace", ns, kServicesNamespace, "--wait=true"},
              absl::Minutes(3));
  std::error_code error;
  fs::remove_all(charts, error);
}

}  // namespace
}  // namespace tidepool::testing

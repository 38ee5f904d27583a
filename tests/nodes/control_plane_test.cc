// cluster-controller makes a SlurmCluster's control plane as pods on real kubelet nodes,
// for the newest Slurm version the nodes carry (SlurmTags): config-renderer and
// cluster-controller run as processes beside the test, the slurmctld pod from the
// project's image. No slurm-syncer runs, so Ready stays False (reconfigure cannot be asked for);
// what is checked is what the controller step builds, and that with two replicas the backup
// shares the primary's state (a ReadWriteMany claim) and takes over when the primary is silent.
#include <signal.h>
#include <sys/types.h>

#include <catch2/catch_test_macros.hpp>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "nodes/kubectl_helpers.h"
#include "nodes/tidepool_services.h"
#include "support/child_process.h"
#include "support/eventually.h"
#include "support/http_get.h"
#include "support/ports.h"
#include "support/testenv.h"

namespace tidepool::testing {
namespace {

constexpr char kCluster[] = "research";

std::string BinaryFromEnv(const char* variable) {
  const char* path = std::getenv(variable);
  REQUIRE(path != nullptr);
  return path;
}

ChildProcess StartService(const char* binary_variable, std::vector<std::string> args,
                          uint16_t grpc_port) {
  args.insert(args.begin(), {"--listen_address=127.0.0.1", absl::StrCat("--grpc_port=", grpc_port),
                             absl::StrCat("--http_port=", FreeLoopbackPort().value())});
  absl::StatusOr<ChildProcess> process = ChildProcess::Spawn(BinaryFromEnv(binary_variable), args);
  REQUIRE(process.ok());
  return *std::move(process);
}

// config-renderer and cluster-controller for one namespace; stopped when it goes.
struct ControlPlaneServices {
  ControlPlaneServices(const KubernetesEnv& env, const std::string& ns) {
    const uint16_t renderer_port = FreeLoopbackPort().value();
    renderer.emplace(StartService("TIDEPOOL_CONFIG_RENDERER", {}, renderer_port));
    controller.emplace(
        StartService("TIDEPOOL_CLUSTER_CONTROLLER",
                     {"--kubeconfig=" + env.kubeconfig,
                      absl::StrCat("--renderer_address=127.0.0.1:", renderer_port),
                      absl::StrCat("--syncer_address=127.0.0.1:", FreeLoopbackPort().value()),
                      "--watch_namespace=" + ns, "--leader_elect=false", "--cgroup_plugin=disabled",
                      "--control_plane=pods"},
                     FreeLoopbackPort().value()));
  }
  std::optional<ChildProcess> renderer;
  std::optional<ChildProcess> controller;
};

std::string ClusterManifest(const std::string& ns, const std::string& tag) {
  return absl::StrCat(R"(apiVersion: tidepool.dev/v1alpha1
kind: SlurmCluster
metadata: {name: )",
                      kCluster, ", namespace: ", ns, R"(}
spec:
  clusterName: )",
                      kCluster, R"(
  images: {controller: "localhost/tidepool/slurmctld:)",
                      tag, R"(", restApi: "localhost/tidepool/slurmrestd:)", tag, R"("}
  controller: {replicas: 2, stateSave: {size: 1Gi}}
  # The backup takes over after the primary is silent this long (default 120 s).
  slurmConfig: {SlurmctldTimeout: "10"}
)");
}

// "type=status/reason" of each condition of the cluster, one per line.
std::string Conditions(const KubernetesEnv& env, const std::string& ns) {
  return TryKubectl(env, {"-n", ns, "get", "slurmcluster", kCluster, "-o",
                          "jsonpath={range .status.conditions[*]}{.type}={.status}/{.reason}: "
                          "{.message}{\"\\n\"}{end}"})
      .value_or("");
}

std::string Exec(const KubernetesEnv& env, const std::string& ns,
                 const std::vector<std::string>& command, int replica = 0) {
  std::vector<std::string> args = {"-n", ns, "exec",
                                   absl::StrCat(kCluster, "-controller-", replica), "--"};
  args.insert(args.end(), command.begin(), command.end());
  return MustKubectl(env, args);
}

void ApplyCrds(const KubernetesEnv& env) {
  MustKubectl(env, {"apply", "-f", SourceRoot() + "/manifests/crds"});
  MustKubectl(env, {"wait", "--for=condition=Established", "--timeout=60s", "crd",
                    "slurmclusters.tidepool.dev", "nodesets.tidepool.dev"});
}

void AwaitControllerAvailable(const KubernetesEnv& env, const std::string& ns,
                              const ControlPlaneServices& services) {
  std::string conditions;
  const bool available =
      PollUntil(
          [&] {
            conditions = Conditions(env, ns);
            return absl::StrContains(conditions, "ControllerAvailable=True/SlurmctldReady");
          },
          absl::Seconds(120), absl::Seconds(1))
          .has_value();
  INFO("conditions:\n"
       << conditions << "\ncluster-controller:\n"
       << services.controller->Output() << "\npods:\n"
       << TryKubectl(env, {"-n", ns, "get", "pods", "-o", "wide"}).value_or(""));
  REQUIRE(available);
}

// slurmrestd through its Service over TLS, its certificate checked for the Service's DNS
// name against the CA of the cluster's TLS Secret: the ping of the newest API version it
// lists, with a token slurmctld minted. Nothing answers without TLS or with another CA.
void CheckRestApiAnswers(const KubernetesEnv& env, const std::string& ns) {
  const std::string ip = MustKubectl(
      env, {"-n", ns, "get", "service", "research-restapi", "-o", "jsonpath={.spec.clusterIP}"});
  std::string ca;
  REQUIRE(absl::Base64Unescape(MustKubectl(env, {"-n", ns, "get", "secret", "research-restapi-tls",
                                                 "-o", R"(jsonpath={.data.ca\.crt})"}),
                               &ca));
  const std::string host = absl::StrCat("research-restapi.", ns, ".svc");
  const std::string base = absl::StrCat("https://", host, ":6820");
  const HttpsTrust trust{.ca_pem = ca, .connect_to = absl::StrCat(host, ":6820:", ip, ":6820")};
  const std::string token(absl::StripAsciiWhitespace(
      absl::StripPrefix(absl::StripAsciiWhitespace(
                            Exec(env, ns, {"scontrol", "token", "username=slurm", "lifespan=300"})),
                        "SLURM_JWT=")));
  const std::vector<std::string> auth = {"X-SLURM-USER-TOKEN: " + token};
  std::string ping_path;
  absl::StatusOr<HttpResponse> openapi;
  REQUIRE(PollUntil(
      [&] {
        openapi = HttpGet(base + "/openapi/v3", absl::Seconds(5), auth, trust);
        return openapi.ok() && openapi->status == 200;
      },
      absl::Seconds(30), absl::Seconds(1)));
  // The paths are listed oldest version first; the last ping is the newest. JSON escapes
  // their slashes.
  const std::string body = absl::StrReplaceAll(openapi->body, {{"\\/", "/"}});
  for (size_t at = body.find("\"/slurm/v"); at != std::string::npos;
       at = body.find("\"/slurm/v", at + 1)) {
    const size_t end = body.find('"', at + 1);
    const std::string path = body.substr(at + 1, end - at - 1);
    if (absl::EndsWith(path, "/ping/")) ping_path = path;
  }
  INFO(openapi->body.substr(0, 400));
  REQUIRE(!ping_path.empty());
  absl::StatusOr<HttpResponse> ping = HttpGet(base + ping_path, absl::Seconds(5), auth, trust);
  REQUIRE(ping.ok());
  INFO(ping_path << ": " << ping->body);
  CHECK(ping->status == 200);
  CHECK(absl::StrContains(ping->body, "research-controller-0"));
  // Compact JSON (SLURMRESTD_JSON reached slurmrestd through the image's entrypoint): no
  // line breaks, where the default indents every member on a line of its own.
  CHECK_FALSE(absl::StrContains(ping->body, "\n"));
  // Without a token slurmrestd refuses.
  absl::StatusOr<HttpResponse> no_token = HttpGet(base + ping_path, absl::Seconds(5), {}, trust);
  REQUIRE(no_token.ok());
  CHECK(no_token->status == 401);
  // Plain HTTP gets no answer, and neither does a client that trusts another CA (the
  // system's) or checks another name (the bare ClusterIP).
  absl::StatusOr<HttpResponse> plain =
      HttpGet(absl::StrCat("http://", ip, ":6820", ping_path), absl::Seconds(5), auth);
  CHECK_FALSE(plain.ok());  // the TLS front resets it
  CHECK_FALSE(
      HttpGet(base + ping_path, absl::Seconds(5), auth, {.connect_to = trust.connect_to}).ok());
  CHECK_FALSE(HttpGet(absl::StrCat("https://", ip, ":6820", ping_path), absl::Seconds(5), auth,
                      {.ca_pem = ca})
                  .ok());
  // The pod's TLS front answers at the pod's address; slurmrestd itself listens on the
  // pod's loopback only.
  const std::string pod_ip =
      MustKubectl(env, {"-n", ns, "get", "pods", "-l", "tidepool.dev/component=slurmrestd", "-o",
                        "jsonpath={.items[0].status.podIP}"});
  absl::StatusOr<HttpResponse> at_pod =
      HttpGet(base + ping_path, absl::Seconds(5), auth,
              {.ca_pem = ca, .connect_to = absl::StrCat(host, ":6820:", pod_ip, ":6820")});
  CHECK((at_pod.ok() && at_pod->status == 200));
  CHECK_FALSE(
      HttpGet(absl::StrCat("http://", pod_ip, ":6821", ping_path), absl::Seconds(5), auth).ok());
}

// The host PID of the slurmctld that is PID 1 of the pod with this hostname: every test
// node is this machine, and a signal from inside the pod cannot stop its PID 1.
std::optional<pid_t> HostPidOfSlurmctld(const std::string& hostname) {
  auto read = [](const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream content;
    content << in.rdbuf();
    return std::string(absl::StripAsciiWhitespace(content.str()));
  };
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) continue;
    if (read(entry.path() / "comm") != "slurmctld") continue;
    if (read(entry.path() / "root/etc/hostname") != hostname) continue;
    const std::string status = read(entry.path() / "status");
    const size_t nspid = status.find("NSpid:");
    if (nspid == std::string::npos) continue;
    const std::string line = status.substr(nspid, status.find('\n', nspid) - nspid);
    if (absl::EndsWith(line, "\t1")) return static_cast<pid_t>(std::stol(name));
  }
  return std::nullopt;
}

// SIGSTOP now, SIGCONT when it goes, also when the test fails in between.
class StoppedProcess {
 public:
  explicit StoppedProcess(pid_t pid) : pid_(pid) { REQUIRE(::kill(pid_, SIGSTOP) == 0); }
  ~StoppedProcess() { ::kill(pid_, SIGCONT); }
  StoppedProcess(const StoppedProcess&) = delete;
  StoppedProcess& operator=(const StoppedProcess&) = delete;

 private:
  const pid_t pid_;
};

TEST_CASE(
    "a SlurmCluster's slurmctld runs as a primary and a backup pod that takes over its jobs") {
  const KubernetesEnv env = RequireKubernetes();
  ApplyCrds(env);
  const std::vector<std::string> tags = SlurmTags(env, SlurmVersions::kNewest);
  REQUIRE(!tags.empty());
  for (const std::string& tag : tags) {
    INFO("Slurm " << tag);
    const std::string ns = SlurmTagNamespace("cp", tag);
    EnsureNamespace(env, ns);
    const ReleaseNamespaceOnExit release{env, ns};
    ControlPlaneServices services(env, ns);
    Apply(env, ClusterManifest(ns, tag));
    AwaitControllerAvailable(env, ns, services);

    // Started together, the primary gives up telling the starting backup to stand down only
    // after a message timeout (about 30 s) and serves after that; the TCP readiness probe
    // passes before.
    std::string ping;
    const bool both_up =
        PollUntil(
            [&] {
              ping = TryKubectl(
                         env, {"-n", ns, "exec", "research-controller-1", "--", "scontrol", "ping"})
                         .value_or("(failed)");
              return absl::StrContains(ping, "Slurmctld(primary) at research-controller-0 is UP") &&
                     absl::StrContains(ping, "Slurmctld(backup) at research-controller-1 is UP");
            },
            absl::Seconds(90), absl::Seconds(1))
            .has_value();
    INFO(ping);
    REQUIRE(both_up);

    // The keys were generated for it and are owned by it.
    for (const std::string secret : {"research-munge-key", "research-jwt-key"}) {
      CHECK(MustKubectl(env, {"-n", ns, "get", "secret", secret, "-o",
                              "jsonpath={.metadata.ownerReferences[0].kind}"}) == "SlurmCluster");
    }
    CHECK(absl::StrContains(Conditions(env, ns), "ConfigRendered=True/Rendered"));
    // slurmctld runs as SlurmctldHost 0 with the rendered config and its JWT key.
    CHECK(absl::StrContains(Exec(env, ns, {"scontrol", "show", "config"}), "ClusterName"));
    CHECK(absl::StrContains(Exec(env, ns, {"stat", "-c", "%U %a", "/etc/slurm/jwt_hs256.key"}),
                            "slurm 400"));
    // slurmrestd, reached through its Service with a token.
    REQUIRE(PollUntil(
        [&] {
          return absl::StrContains(Conditions(env, ns), "RestApiAvailable=True/SlurmrestdReady");
        },
        absl::Seconds(90), absl::Seconds(1)));
    CheckRestApiAnswers(env, ns);

    // The backup shares the primary's state through the ReadWriteMany claim.
    CHECK(MustKubectl(env, {"-n", ns, "get", "pvc", "research-controller-state", "-o",
                            "jsonpath={.spec.accessModes}"}) == R"(["ReadWriteMany"])");

    // The primary hangs (SIGSTOP: its pod stays, its heartbeat on the shared claim stops);
    // the backup takes control with the primary's jobs, read from the claim.
    const std::string job(absl::StripAsciiWhitespace(
        Exec(env, ns, {"sbatch", "--parsable", "--hold", "-o", "/dev/null", "--wrap", "true"})));
    const std::optional<pid_t> primary = HostPidOfSlurmctld("research-controller-0");
    REQUIRE(primary.has_value());
    {
      const StoppedProcess hung(*primary);
      const absl::Time stopped = absl::Now();
      std::string backup_log;
      const bool took_over =
          PollUntil(
              [&] {
                backup_log =
                    TryKubectl(env, {"-n", ns, "logs", "research-controller-1"}).value_or("");
                return absl::StrContains(backup_log, "Running as primary controller") &&
                       absl::StrContains(backup_log, absl::StrCat("Recovered JobId=", job, " "));
              },
              absl::Seconds(90), absl::Seconds(1))
              .has_value();
      INFO("backup's log:\n"
           << backup_log.substr(backup_log.size() > 3000 ? backup_log.size() - 3000 : 0));
      REQUIRE(took_over);
      WARN("primary hung -> backup in control with its jobs: "
           << absl::FormatDuration(absl::Now() - stopped) << " (SlurmctldTimeout 10 s)");
    }
    // The primary resumes, takes control back, and the backup stands by again; the job is
    // still there.
    std::string after;
    const bool recovered =
        PollUntil(
            [&] {
              after = TryKubectl(env, {"-n", ns, "exec", "research-controller-1", "--", "sh", "-c",
                                       "scontrol ping; squeue -h -o '%i %r'"})
                          .value_or("(failed)");
              return absl::StrContains(after,
                                       "Slurmctld(primary) at research-controller-0 is UP") &&
                     absl::StrContains(after, "Slurmctld(backup) at research-controller-1 is UP") &&
                     absl::StrContains(after, absl::StrCat(job, " JobHeldUser"));
            },
            absl::Seconds(120), absl::Seconds(2))
            .has_value();
    INFO(after);
    CHECK(recovered);

    // Deleting the cluster takes what it owns and keeps the state claim.
    MustKubectl(env, {"-n", ns, "delete", "slurmcluster", kCluster, "--wait=true"});
    const bool collected =
        PollUntil(
            [&] {
              return TryKubectl(
                         env, {"-n", ns, "get", "statefulsets,services,secrets,pdb", "-o", "name"})
                         .value_or("x") == "";
            },
            absl::Seconds(60), absl::Seconds(1))
            .has_value();
    INFO(TryKubectl(env, {"-n", ns, "get", "all,secrets,pdb,pvc"}).value_or(""));
    CHECK(collected);
    CHECK(TryKubectl(env, {"-n", ns, "get", "pvc", "research-controller-state"}).has_value());
    MustKubectl(env, {"delete", "namespace", ns, "--wait=true", "--timeout=120s"},
                absl::Seconds(130));
  }
}

}  // namespace
}  // namespace tidepool::testing

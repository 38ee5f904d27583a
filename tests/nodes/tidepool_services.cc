#include "nodes/tidepool_services.h"

#include <catch2/catch_test_macros.hpp>
#include <csignal>
#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "nodes/kubectl_helpers.h"
#include "support/grpc_certs.h"
#include "support/ports.h"

namespace tidepool::testing {
namespace {

std::string Binary(const char* variable) {
  const char* path = std::getenv(variable);
  REQUIRE(path != nullptr);
  return path;
}

}  // namespace

TidepoolServices::TidepoolServices(const KubernetesEnv& env, const std::string& ns,
                                   const std::string& cluster) {
  const uint16_t renderer = FreeLoopbackPort().value();
  const uint16_t syncer = FreeLoopbackPort().value();
  const std::string kube = "--kubeconfig=" + env.kubeconfig;
  // Mutual TLS between the services, as deployed.
  grpc_tls_dir_ = absl::StrCat(TestenvRunDir(), "/nodes-grpc-tls");
  REQUIRE(
      MakeGrpcCertificates(grpc_tls_dir_, {"config-renderer", "slurm-syncer", "nodeset-controller",
                                           "cluster-controller", "pod-scheduler"})
          .ok());
  Start("config-renderer", "TIDEPOOL_CONFIG_RENDERER", renderer, {});
  Start("slurm-syncer", "TIDEPOOL_SLURM_SYNCER", syncer,
        {kube, "--leader_elect=false", "--slurm_cluster=" + ns + "/" + cluster,
         // The test runs on the host: it reaches the Service's ClusterIP, not its DNS name.
         "--slurm_rest_address_from=service", "--slurm_jwt_key_refresh_interval=5s",
         "--pod_namespace=" + ns, "--node_poll_interval=1s"});
  const std::string to_syncer = absl::StrCat("--syncer_address=127.0.0.1:", syncer);
  Start(
      "nodeset-controller", "TIDEPOOL_NODESET_CONTROLLER", FreeLoopbackPort().value(),
      // Its gate guard reads slurm-syncer's Lease, and slurm-syncer here runs without one.
      {kube, "--leader_elect=false", "--watch_namespace=" + ns, to_syncer, "--syncer_lease_name="});
  // Idle unless the cluster enables spec.podScheduler.
  Start("pod-scheduler", "TIDEPOOL_POD_SCHEDULER", FreeLoopbackPort().value(),
        {kube, "--leader_elect=false", "--slurm_cluster=" + ns + "/" + cluster, to_syncer});
  cluster_controller_args_ = {kube,
                              "--leader_elect=false",
                              "--watch_namespace=" + ns,
                              to_syncer,
                              absl::StrCat("--renderer_address=127.0.0.1:", renderer),
                              "--cgroup_plugin=disabled",
                              "--config_propagation_delay=2s",
                              "--control_plane=pods"};
  StartClusterController();
}

void TidepoolServices::KillClusterController() {
  std::optional<ChildProcess>& process = processes_["cluster-controller"];
  REQUIRE(process.has_value());
  REQUIRE(process->Signal(SIGKILL).ok());
  REQUIRE(process->WaitForExit(absl::Seconds(10)).ok());
}

void TidepoolServices::StartClusterController() {
  Start("cluster-controller", "TIDEPOOL_CLUSTER_CONTROLLER", FreeLoopbackPort().value(),
        cluster_controller_args_);
}

std::string TidepoolServices::Logs() const {
  std::string all;
  for (const auto& [name, process] : processes_) {
    if (!process.has_value()) continue;
    const std::string output = process->Output();
    absl::StrAppend(&all, "--- ", name, " (last 3000 bytes)\n",
                    output.substr(output.size() > 3000 ? output.size() - 3000 : 0), "\n");
  }
  return all;
}

int TidepoolServices::Logged(const std::string& service, const std::string& event) const {
  auto it = processes_.find(service);
  if (it == processes_.end() || !it->second.has_value()) return 0;
  const std::string output = it->second->Output();
  const std::string what = absl::StrCat("event=", event, " ");
  int n = 0;
  for (size_t at = output.find(what); at != std::string::npos; at = output.find(what, at + 1)) {
    ++n;
  }
  return n;
}

std::string TidepoolServices::LinesWith(const std::string& service, const std::string& text) const {
  auto it = processes_.find(service);
  if (it == processes_.end() || !it->second.has_value()) return "";
  std::string found;
  for (absl::string_view line : absl::StrSplit(it->second->Output(), '\n')) {
    if (absl::StrContains(line, text)) absl::StrAppend(&found, line, "\n");
  }
  return found;
}

void TidepoolServices::Start(const std::string& name, const char* binary, uint16_t grpc_port,
                             std::vector<std::string> args) {
  // A restarted service keeps its HTTP port: a scrape target stays where it was.
  if (!http_ports_.contains(name)) http_ports_[name] = FreeLoopbackPort().value();
  args.insert(args.begin(), {"--listen_address=127.0.0.1", absl::StrCat("--grpc_port=", grpc_port),
                             absl::StrCat("--http_port=", http_ports_[name]),
                             absl::StrCat("--grpc_tls_dir=", grpc_tls_dir_, "/", name)});
  absl::StatusOr<ChildProcess> process = ChildProcess::Spawn(Binary(binary), args);
  REQUIRE(process.ok());
  processes_[name].emplace(*std::move(process));
}

ReleaseNamespaceOnExit::~ReleaseNamespaceOnExit() {
  if (TryKubectl(env, {"-n", ns, "get", "slurmcluster", "research", "-o", "name"}).has_value()) {
    TryKubectl(env, {"-n", ns, "patch", "slurmcluster", "research", "--type=merge", "-p",
                     R"({"metadata":{"finalizers":null}})"});
  }
  TryKubectl(env, {"delete", "namespace", ns, "--wait=false"});
  // Each NodeSet holds tidepool.dev/drain-pods until a nodeset-controller lets it go; with
  // the test's controllers stopped, none would. Released once they are being deleted (a
  // running controller would add it back to a NodeSet not being deleted).
  const std::string node_sets =
      TryKubectl(env, {"-n", ns, "get", "nodesets", "-o", "name"}).value_or("");
  for (absl::string_view name : absl::StrSplit(node_sets, '\n', absl::SkipWhitespace())) {
    TryKubectl(env, {"-n", ns, "patch", std::string(name), "--type=merge", "-p",
                     R"({"metadata":{"finalizers":null}})"});
  }
  (void)Kubectl(env, {"wait", "--for=delete", "namespace/" + ns, "--timeout=120s"},
                absl::Seconds(130));
}

void ForEachSlurmVersion(
    const KubernetesEnv& env, SlurmVersions which, const std::string& prefix,
    const std::function<void(const std::string& tag, const std::string& ns)>& body) {
  const std::vector<std::string> tags = SlurmTags(env, which);
  REQUIRE(!tags.empty());
  for (const std::string& tag : tags) {
    INFO("Slurm " << tag);
    const std::string ns = SlurmTagNamespace(prefix, tag);
    EnsureNamespace(env, ns);
    ReleaseNamespaceOnExit release{env, ns};
    body(tag, ns);
  }
}

}  // namespace tidepool::testing

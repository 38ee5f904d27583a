#pragma once

// The whole system for end-to-end tests: a real API server and a real Slurm (the ctest
// fixtures), every service of the loop as its own process talking gRPC with mutual TLS,
// and tools/node-agent playing kubelet for four simulated H100 Nodes with a real slurmd
// each. The sample cluster of manifests/samples/local (two NodeSets of two Nodes) is
// applied once per test binary; each test case leaves it as it found it.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <cstdlib>
#include <functional>
#include <list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "support/child_process.h"
#include "support/eventually.h"
#include "support/grpc_certs.h"
#include "support/ports.h"
#include "support/testenv.h"

namespace tidepool::testing {

inline constexpr int kNodes = 4;

inline std::string Binary(const char* variable) {
  const char* path = std::getenv(variable);
  REQUIRE(path != nullptr);
  return path;
}

inline std::optional<absl::Duration> Eventually(const std::function<bool()>& check,
                                                absl::Duration timeout = absl::Seconds(60)) {
  return PollUntil(check, timeout, absl::Milliseconds(50));
}

struct Component {
  std::string name;     // "slurm-syncer", or "slurm-syncer standby" for a second replica
  std::string service;  // the binary it runs
  std::optional<ChildProcess> process;
  uint16_t http_port = 0;
};

inline std::string Hostname() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  return host;
}

// The system, started once per test binary and stopped at exit.
class System {
 public:
  static System& Get() {
    static System* system = new System();  // stopped by the atexit hook below
    return *system;
  }

  std::string Kubectl(const std::vector<std::string>& args) {
    absl::StatusOr<CommandResult> r = testing::Kubectl(kube_, args);
    REQUIRE(r.ok());
    INFO("kubectl " << absl::StrJoin(args, " ") << ": " << r->output);
    REQUIRE(r->exit_code == 0);
    return r->output;
  }
  std::string Slurm(const std::vector<std::string>& args) {
    absl::StatusOr<CommandResult> r = SlurmExec(slurm_, args);
    REQUIRE(r.ok());
    INFO(absl::StrJoin(args, " ") << ": " << r->output);
    REQUIRE(r->exit_code == 0);
    return r->output;
  }
  // "NAME STATE REASON" lines of sinfo -N, one per Slurm node.
  std::string SlurmNodes() {
    absl::StatusOr<CommandResult> r = SlurmExec(slurm_, {"sinfo", "-h", "-N", "-o", "%N %T %E"});
    return r.ok() ? r->output : "";
  }
  int IdleNodes() {
    int idle = 0;
    for (absl::string_view line : absl::StrSplit(SlurmNodes(), '\n', absl::SkipEmpty())) {
      if (absl::StrContains(line, " idle ")) ++idle;
    }
    return idle;
  }
  std::string SlurmReason(const std::string& node) {
    absl::StatusOr<CommandResult> r = SlurmExec(slurm_, {"sinfo", "-h", "-n", node, "-o", "%E"});
    return r.ok() ? std::string(absl::StripAsciiWhitespace(r->output)) : "";
  }
  std::string Json(const std::vector<std::string>& args, const std::string& path) {
    std::vector<std::string> full = args;
    full.push_back("-o");
    full.push_back("jsonpath=" + path);
    absl::StatusOr<CommandResult> r = testing::Kubectl(kube_, full);
    return r.ok() && r->exit_code == 0 ? r->output : "";
  }
  const SlurmEnv& slurm() const { return slurm_; }
  // The last `lines` lines a component's current process logged: what it did before a
  // check failed.
  std::string LogTail(const std::string& name, size_t lines = 60) {
    const Component& c = Find(name);
    if (!c.process) return "";
    const std::vector<absl::string_view> all =
        absl::StrSplit(c.process->Output(), '\n', absl::SkipEmpty());
    const size_t from = all.size() > lines ? all.size() - lines : 0;
    return absl::StrJoin(all.begin() + from, all.end(), "\n");
  }
  // "name=uid ..." of the slurmd pods: equal before and after means none was replaced.
  std::string Pods() {
    return Json({"-n", "hpc", "get", "pods"},
                R"({range .items[*]}{.metadata.name}={.metadata.uid} {end})");
  }
  bool NoNodeCondition(const std::string& type) {
    const std::string statuses =
        Json({"get", "nodes"},
             absl::StrCat("{.items[*].status.conditions[?(@.type==\"", type, "\")].status}"));
    return !absl::StrContains(statuses, "True");
  }
  std::string PartitionMaxTime() {
    const std::string partition = Slurm({"scontrol", "show", "partition", "gpu"});
    for (absl::string_view field : absl::StrSplit(partition, absl::ByAnyChar(" \n"))) {
      if (absl::ConsumePrefix(&field, "MaxTime=")) return std::string(field);
    }
    return "";
  }
  // True once pod `name` in hpc exists again as another incarnation than `uid`.
  bool AwaitReplaced(const std::string& name, const std::string& uid) {
    return Eventually(
               [&] {
                 const std::string now = Json({"-n", "hpc", "get", "pod", name}, "{.metadata.uid}");
                 return !now.empty() && now != uid;
               },
               absl::Seconds(90))
        .has_value();
  }
  bool AllReady() {
    return IdleNodes() == kNodes &&
           Json({"get", "nodesets", "-n", "hpc"}, "{.items[*].status.numberReady}") == "2 2";
  }
  // No graceful exit: a Lease it holds stays until it expires, as after a crash.
  void Kill(const std::string& name) {
    Component& c = Find(name);
    REQUIRE(c.process.has_value());
    REQUIRE(c.process->Signal(SIGKILL).ok());
    (void)c.process->WaitForExit(absl::Seconds(10));
    c.process.reset();
  }
  void Start(const std::string& name) {
    Component& c = Find(name);
    REQUIRE_FALSE(c.process.has_value());
    Launch(c);
  }
  void Restart(const std::string& name) {
    Kill(name);
    Start(name);
  }
  // SIGTERM, as a rolling restart of its Deployment: a Lease it holds is released.
  void RestartGracefully(const std::string& name) {
    Component& c = Find(name);
    REQUIRE(c.process.has_value());
    REQUIRE(c.process->Signal(SIGTERM).ok());
    CHECK(c.process->WaitForExit(absl::Seconds(20)).ok());
    c.process.reset();
    Launch(c);
  }
  // kubectl that may fail (the API server may be down): true when it succeeded.
  bool TryKubectl(const std::vector<std::string>& args) {
    absl::StatusOr<CommandResult> r = testing::Kubectl(kube_, args);
    return r.ok() && r->exit_code == 0;
  }
  // A second replica of a service with its own ports; it campaigns for the same Lease.
  std::string StartStandby(const std::string& service) {
    const std::string name = service + " standby";
    components_.push_back({.name = name, .service = service});
    Launch(components_.back());
    return name;
  }
  // SIGTERM, so a Lease it holds is released, and forgotten.
  void StopStandby(const std::string& name) {
    auto it = std::find_if(components_.begin(), components_.end(),
                           [&](const Component& c) { return c.name == name; });
    REQUIRE(it != components_.end());
    if (it->process) {
      (void)it->process->Signal(SIGTERM);
      CHECK(it->process->WaitForExit(absl::Seconds(20)).ok());
    }
    components_.erase(it);
  }
  // The identity a component's replica writes into its Lease (DefaultIdentity).
  std::string Identity(const std::string& name) {
    Component& c = Find(name);
    REQUIRE(c.process.has_value());
    return absl::StrCat(Hostname(), "_", c.process->pid());
  }
  std::string LeaseHolder(const std::string& lease) {
    return Json({"-n", "tidepool-system", "get", "lease", lease}, "{.spec.holderIdentity}");
  }

  // When the Lease's current holder acquired it (its spec.acquireTime, written by the new
  // leader itself): the takeover time without the delay of polling for it.
  std::optional<absl::Time> LeaseAcquired(const std::string& lease) {
    const std::string stamp =
        Json({"-n", "tidepool-system", "get", "lease", lease}, "{.spec.acquireTime}");
    absl::Time time;
    std::string error;
    if (!absl::ParseTime("%Y-%m-%dT%H:%M:%E*SZ", stamp, &time, &error)) return std::nullopt;
    return time;
  }

 private:
  System() : kube_(Kubernetes().value()), slurm_(testing::Slurm().value()) {
    Kubectl({"apply", "-f", SourceRoot() + "/manifests/crds"});
    Kubectl({"wait", "--for=condition=Established", "--timeout=60s",
             "crd/slurmclusters.tidepool.dev", "crd/nodesets.tidepool.dev"});
    Kubectl({"apply", "-f", SourceRoot() + "/manifests/rbac/namespace.yaml"});
    StartComponents();
    Kubectl({"apply", "-f", SourceRoot() + "/manifests/samples/local/cluster.yaml"});
    (void)testing::Kubectl(kube_, {"-n", "hpc", "create", "serviceaccount", "default"});
    std::atexit([] { Get().Stop(); });
  }

  void StartComponents() {
    const uint16_t renderer = FreeLoopbackPort().value();
    const uint16_t syncer = FreeLoopbackPort().value();
    const std::string kube = "--kubeconfig=" + kube_.kubeconfig;
    const std::string lease_ns = "--leader_election_namespace=tidepool-system";
    args_ = {
        {"config-renderer", {}},
        {"slurm-syncer",
         {"--slurm_rest_url=" + slurm_.rest_url, "--slurm_jwt_key_file=" + slurm_.jwt_key_file,
          "--slurm_jwt_user=" + slurm_.token_user, kube, lease_ns}},
        {"nodeset-controller",
         {kube, lease_ns, absl::StrCat("--syncer_address=127.0.0.1:", syncer)}},
        {"cluster-controller",
         {kube, lease_ns, absl::StrCat("--renderer_address=127.0.0.1:", renderer),
          absl::StrCat("--syncer_address=127.0.0.1:", syncer),
          "--gpu_device_prefix=/etc/slurm/fake-nvidia", "--cgroup_plugin=disabled",
          "--config_propagation_delay=2s", "--control_plane=external",
          // The node agent projects the rendered files into this slurmctld's: a
          // reconfigure that reached it before all of them is sent again.
          "--verify_config_loaded=true"}},
        {"node-agent",
         {kube, absl::StrCat("--nodes=", kNodes), "--node_prefix=sim-", "--gpu_count=8",
          "--gpu_product=NVIDIA-H100-80GB-HBM3",
          "--node_labels_file=" + SourceRoot() + "/manifests/samples/local/node-labels",
          "--gpu_placeholder_files=fake-nvidia", "--config_namespace=hpc", "--cleanup_nodes",
          "--resync_interval=2s"}},
        {"pod-scheduler",
         {kube, lease_ns, absl::StrCat("--syncer_address=127.0.0.1:", syncer),
          "--slurm_cluster=hpc/local"}},
    };
    fixed_ports_ = {{"config-renderer", renderer}, {"slurm-syncer", syncer}};
    // The services call each other with mutual TLS, as deployed: each with its own identity.
    grpc_tls_dir_ = absl::StrCat(testing::TestenvRunDir(), "/e2e-grpc-tls");
    REQUIRE(testing::MakeGrpcCertificates(grpc_tls_dir_,
                                          {"config-renderer", "slurm-syncer", "nodeset-controller",
                                           "cluster-controller", "pod-scheduler"})
                .ok());
    for (const char* name : {"config-renderer", "slurm-syncer", "nodeset-controller",
                             "cluster-controller", "node-agent", "pod-scheduler"}) {
      components_.push_back({.name = name, .service = name});
      Launch(components_.back());
    }
  }

  Component& Find(const std::string& name) {
    auto it = std::find_if(components_.begin(), components_.end(),
                           [&](const Component& c) { return c.name == name; });
    REQUIRE(it != components_.end());
    return *it;
  }

  // The services find a service's first replica on its fixed port; a standby has its own.
  void Launch(Component& c) {
    std::vector<std::string> args = args_.at(c.service);
    if (c.service != "node-agent") {
      auto fixed = fixed_ports_.find(c.name);
      const uint16_t grpc =
          fixed != fixed_ports_.end() ? fixed->second : FreeLoopbackPort().value();
      c.http_port = FreeLoopbackPort().value();
      args.insert(args.begin(), {"--listen_address=127.0.0.1", absl::StrCat("--grpc_port=", grpc),
                                 absl::StrCat("--http_port=", c.http_port),
                                 absl::StrCat("--grpc_tls_dir=", grpc_tls_dir_, "/", c.service)});
    }
    std::string variable = "TIDEPOOL_BIN_" + c.service;
    std::replace(variable.begin(), variable.end(), '-', '_');
    absl::StatusOr<ChildProcess> process = ChildProcess::Spawn(Binary(variable.c_str()), args);
    REQUIRE(process.ok());
    c.process.emplace(*std::move(process));
  }

  void Stop() {
    for (auto it = components_.rbegin(); it != components_.rend(); ++it) {
      if (!it->process) continue;
      (void)it->process->Signal(SIGTERM);
      (void)it->process->WaitForExit(absl::Seconds(20));
    }
    (void)testing::Kubectl(kube_, {"delete", "--wait=false", "-f",
                                   SourceRoot() + "/manifests/samples/local/cluster.yaml"});
  }

  KubernetesEnv kube_;
  SlurmEnv slurm_;
  std::map<std::string, std::vector<std::string>> args_;
  std::map<std::string, uint16_t> fixed_ports_;
  std::string grpc_tls_dir_;
  std::list<Component> components_;  // stable addresses while replicas come and go
};

inline System& ReadySystem() {
  System& system = System::Get();
  auto took = Eventually([&] { return system.AllReady(); }, absl::Seconds(240));
  INFO(system.SlurmNodes());
  REQUIRE(took.has_value());
  return system;
}

}  // namespace tidepool::testing

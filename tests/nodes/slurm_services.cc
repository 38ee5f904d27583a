#include "nodes/slurm_services.h"

#include <catch2/catch_test_macros.hpp>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "support/ports.h"

namespace tidepool::testing {

SlurmServices::SlurmServices(const KubernetesEnv& env, const std::string& ns) {
  const uint16_t renderer = FreeLoopbackPort().value();
  const uint16_t syncer = FreeLoopbackPort().value();
  const std::string kube = "--kubeconfig=" + env.kubeconfig;
  Start("renderer", "TIDEPOOL_CONFIG_RENDERER", renderer, {});
  Start("syncer", "TIDEPOOL_SLURM_SYNCER", syncer,
        {kube, "--leader_elect=false", "--slurm_cluster=" + ns + "/research",
         // The test runs on the host: it reaches the Service's ClusterIP, not its DNS name.
         "--slurm_rest_address_from=service", "--slurm_jwt_key_refresh_interval=5s",
         "--pod_namespace=" + ns, "--node_poll_interval=1s"});
  const std::string to_syncer = absl::StrCat("--syncer_address=127.0.0.1:", syncer);
  Start("nodeset-controller", "TIDEPOOL_NODESET_CONTROLLER", FreeLoopbackPort().value(),
        {kube, "--leader_elect=false", "--watch_namespace=" + ns, to_syncer});
  Start("cluster-controller", "TIDEPOOL_CLUSTER_CONTROLLER", FreeLoopbackPort().value(),
        {kube, "--leader_elect=false", "--watch_namespace=" + ns, to_syncer,
         absl::StrCat("--renderer_address=127.0.0.1:", renderer), "--cgroup_plugin=disabled",
         "--config_propagation_delay=2s"});
}

std::string SlurmServices::Logs() const {
  std::string all;
  for (const auto& [name, process] : processes_) {
    const std::string output = process.Output();
    absl::StrAppend(&all, "--- ", name, " (last 3000 bytes)\n",
                    output.substr(output.size() > 3000 ? output.size() - 3000 : 0), "\n");
  }
  return all;
}

void SlurmServices::Start(const std::string& name, const char* binary_variable, uint16_t grpc_port,
                          std::vector<std::string> args) {
  const char* binary = std::getenv(binary_variable);
  INFO(binary_variable);
  REQUIRE(binary != nullptr);
  args.insert(args.begin(), {"--listen_address=127.0.0.1", absl::StrCat("--grpc_port=", grpc_port),
                             absl::StrCat("--http_port=", FreeLoopbackPort().value())});
  absl::StatusOr<ChildProcess> process = ChildProcess::Spawn(binary, args);
  REQUIRE(process.ok());
  processes_.emplace_back(name, *std::move(process));
}

}  // namespace tidepool::testing

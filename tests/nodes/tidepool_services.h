#pragma once
// The five services as processes beside a real-node test, for one namespace's SlurmCluster
// (config-renderer, slurm-syncer reaching the cluster's slurmrestd through its Service,
// nodeset-controller, cluster-controller with a control plane of pods, pod-scheduler); stopped when
// this goes. The cluster-controller can be killed and started again alone (restart tests).
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "nodes/kubectl_helpers.h"
#include "support/child_process.h"
#include "support/testenv.h"

namespace tidepool::testing {

class TidepoolServices {
 public:
  TidepoolServices(const KubernetesEnv& env, const std::string& ns,
                   const std::string& cluster = "research");

  // SIGKILL: no clean shutdown, as when a node dies.
  void KillClusterController();
  void StartClusterController();

  // The last 3000 bytes of each service's output.
  std::string Logs() const;
  // How many times `service` ("slurm-syncer") logged `event` so far, in all its output.
  int Logged(const std::string& service, const std::string& event) const;
  // Every line of `service`'s output that holds `text`, in all its output.
  std::string LinesWith(const std::string& service, const std::string& text) const;

  // Each service's HTTP port on 127.0.0.1 (/metrics, /healthz), by service name.
  const std::map<std::string, uint16_t>& HttpPorts() const { return http_ports_; }

 private:
  void Start(const std::string& name, const char* binary, uint16_t grpc_port,
             std::vector<std::string> args);

  std::string grpc_tls_dir_;  // <dir>/<service>: each service's gRPC identity
  std::vector<std::string> cluster_controller_args_;
  std::map<std::string, std::optional<ChildProcess>> processes_;
  std::map<std::string, uint16_t> http_ports_;
};

// Deletes the namespace when it goes, first releasing the SlurmCluster "research" from the
// teardown finalizer should it still be there: a test that fails (or a controller gone)
// must not leave the namespace stuck on it.
struct ReleaseNamespaceOnExit {
  ~ReleaseNamespaceOnExit();
  const KubernetesEnv& env;
  std::string ns;
};

// Runs `body` once per Slurm version `which` picks (SlurmTags; the nodes carrying none
// fails the test), with the version in every assertion's message, in a namespace of its
// own (SlurmTagNamespace(prefix, tag)) made before and released after, also when `body`
// fails.
void ForEachSlurmVersion(
    const KubernetesEnv& env, SlurmVersions which, const std::string& prefix,
    const std::function<void(const std::string& tag, const std::string& ns)>& body);

}  // namespace tidepool::testing

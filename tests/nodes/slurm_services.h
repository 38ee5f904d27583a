#pragma once
// The four services a SlurmCluster of pods needs, run as processes beside a real-node test
// for one namespace (as slurm_cluster_test.cc runs them): config-renderer, slurm-syncer
// reaching the cluster "research"'s slurmrestd through its Service's ClusterIP,
// nodeset-controller and cluster-controller. Stopped when the object goes.
#include <string>
#include <utility>
#include <vector>

#include "support/child_process.h"
#include "support/testenv.h"

namespace tidepool::testing {

class SlurmServices {
 public:
  SlurmServices(const KubernetesEnv& env, const std::string& ns);

  // The end of each service's output, for a failure's message.
  std::string Logs() const;

 private:
  void Start(const std::string& name, const char* binary_variable, uint16_t grpc_port,
             std::vector<std::string> args);

  std::vector<std::pair<std::string, ChildProcess>> processes_;
};

}  // namespace tidepool::testing

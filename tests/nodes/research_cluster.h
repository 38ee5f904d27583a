#pragma once

// The SlurmCluster "research" and its NodeSet "cpu" (every test node) that the real-node
// tests apply, from the project's images of one Slurm version, with the parts a test asks
// for.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "support/testenv.h"

namespace tidepool::testing {

struct ResearchClusterParts {
  std::string ns;
  std::string slurm_tag;    // "26.05"
  std::string mariadb_tag;  // set: accounting with a managed MariaDB of this image
  bool login = false;       // login pods, keys from the Secret "research-ssh-keys"
  bool compute = true;      // the NodeSet "cpu" and the partition "batch" of its nodes
  // Set: spec.prolog / spec.epilog name these ConfigMaps.
  std::string prolog_config_map;
  std::string epilog_config_map;
  std::map<std::string, std::string> annotations;  // the SlurmCluster's
  bool pod_scheduler = false;  // spec.podScheduler with the scheduler name "tidepool"
  // Partition-priority preemption: "batch" (PriorityTier 1, its jobs requeued when
  // preempted) and "urgent" (PriorityTier 10, never preempted) over the same nodes.
  bool preemption = false;
};

std::string ResearchClusterManifest(const ResearchClusterParts& parts);

// `command` run in the cluster's slurmctld pod (research-controller-0); its output, or
// nullopt when kubectl or the command failed.
std::optional<std::string> InController(const KubernetesEnv& env, const std::string& ns,
                                        const std::vector<std::string>& command);

}  // namespace tidepool::testing

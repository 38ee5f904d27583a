#pragma once

// Pure builders of what the config loop writes: the ConfigMap with the rendered files,
// and the SlurmCluster's status.

#include <map>
#include <string>

#include "absl/time/time.h"
#include "k8s/conditions.h"
#include "tidepool/v1/renderer.pb.h"
#include "tidepool/v1/slurm_cluster.pb.h"

namespace tidepool::cluster {

// A server-side apply body for "<cluster>-slurm-config": the files as data, labels
// tidepool.dev/component=slurm-config and tidepool.dev/cluster, the hash annotation, and
// the SlurmCluster as controlling owner (so the ConfigMap goes when the cluster does).
std::string ConfigMapApplyBody(const v1::SlurmCluster& cluster, const v1::RenderResponse& rendered);

// What the config loop knows after a sync, for the status.
struct ConfigLoopOutcome {
  int64_t generation = 0;
  bool rendered = false;
  std::string render_error;   // when not rendered
  std::string rendered_hash;  // the ConfigMap's
  std::string applied_hash;   // what Slurm was last reconfigured with (status.configHash)
  std::string reconfigure_error;
  int nodes = 0;
  int partitions = 0;
};

// A JSON merge patch of the status subresource: observedGeneration, configHash, nodes,
// partitions and the conditions ConfigRendered and Ready (transition times kept while a
// status holds). `current` is the cluster's present conditions.
std::string StatusPatch(const ConfigLoopOutcome& outcome,
                        const std::map<std::string, k8s::Condition>& current, absl::Time now);

// True when the patch would change nothing the status already says.
bool StatusUnchanged(const ConfigLoopOutcome& outcome, const std::string& current_hash,
                     int64_t current_generation,
                     const std::map<std::string, k8s::Condition>& current);

}  // namespace tidepool::cluster

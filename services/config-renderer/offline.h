#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tidepool/v1/renderer.pb.h"

namespace tidepool::renderer {

// A render request from Kubernetes objects as JSON (one SlurmCluster, its NodeSets, and
// Nodes): membership and Slurm names are planned as the nodeset-controller would.
// `cluster_name` picks a SlurmCluster when the objects hold several.
absl::StatusOr<tidepool::v1::RenderRequest> RequestFromObjects(
    const std::vector<std::string>& json_objects, const std::string& cluster_name,
    std::vector<std::string>& warnings);

// The offline commands of the config-renderer binary:
//   render [--output_dir=DIR] [--cluster=NAME] FILE...   YAML/JSON in, config files out
//   hostlist expand EXPRESSION...                         one host per line
//   hostlist compress [NAME...]                           names (or stdin lines) compressed
// nullopt when `args` name no command (the binary then runs as a service).
std::optional<int> RunOfflineCommand(const std::vector<std::string>& args);

}  // namespace tidepool::renderer

#pragma once

#include <string>

#include "absl/status/statusor.h"

#include "slurm/conf/model.h"

namespace tidepool::slurm {

// Deterministic text for each file: the same model gives the same bytes. Nodes with
// identical attributes are grouped into one line with a compressed hostlist; groups keep
// the order in which their first node appears in the model. A name that cannot stand in
// a hostlist (brackets, commas, whitespace) is an InvalidArgument error.
absl::StatusOr<std::string> WriteSlurmConf(const SlurmConf& conf);
absl::StatusOr<std::string> WriteGresConf(const GresConf& conf);
absl::StatusOr<std::string> WriteTopologyConf(const TopologyConf& conf);
std::string WriteCgroupConf(const CgroupConf& conf);

}  // namespace tidepool::slurm

#pragma once

// Whether slurmctld runs on the rendered files. slurmrestd has no view of slurm.conf, so
// the check is on what it does show and what matters to jobs: the node list, each
// node's CPUs and memory (when the files set them) and its partitions. A reconfigure
// that read files kubelet had not refreshed yet, or that slurmctld refused, shows here as
// a missing node, a node still listed, or a changed attribute or partition.

#include <optional>
#include <string>

#include "google/protobuf/repeated_ptr_field.h"
#include "tidepool/v1/renderer.pb.h"
#include "tidepool/v1/syncer.pb.h"

namespace tidepool::cluster {

// nullopt when slurmctld lists exactly the expected nodes as expected; otherwise what
// differs, for the status ("slurmctld does not list cpu-03; cpu-01 has 4 CPUs, the
// config 8"), naming at most a few nodes.
std::optional<std::string> LoadedConfigMismatch(
    const google::protobuf::RepeatedPtrField<v1::LoadedNode>& expected,
    const google::protobuf::RepeatedPtrField<v1::SlurmNode>& listed);

}  // namespace tidepool::cluster

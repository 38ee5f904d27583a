#pragma once

// How far apart reconfigures of one Slurm cluster must be, for everything that sends
// them (the cluster-controller; the test environment's node agent).

#include <cstdint>

#include "absl/time/time.h"

namespace tidepool::api {

// The least time between two reconfigures of a cluster of `nodes` Slurm nodes: 6 ms per
// node, at most 60 s. A reconfigure restarts slurmctld, which reloads the state of every
// node (about 6 s at 5,000 nodes here); during a scale-out of thousands each batch of new
// pods changes the config, and reconfigures sent every few seconds piled up until
// slurmctld died in one (10,000 nodes). Spaced, one reconfigure takes every change since
// the last. Under 170 nodes it is below 1 s; zero for no nodes.
absl::Duration ReconfigureSpacing(int64_t nodes);

}  // namespace tidepool::api

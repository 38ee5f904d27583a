#pragma once

// Sets or clears a drain in Slurm under the drain policy: reads the node fresh, plans
// with PlanDrainUpdate, sends the update, reads the node back (when asked) and wakes the
// node poll so watchers see the change at once. The gRPC UpdateNode and the two-way sync both
// drain through here, one request per node at a time: two requests read–decide–writing one
// node together could both plan from the same state, and the later write would undo the
// earlier (an undrain planned before a scale-in drain landed would clear it).

#include "absl/status/statusor.h"
#include "common/keyed_mutex.h"
#include "drain_policy.h"
#include "node_poller.h"
#include "slurm/rest/model.h"
#include "slurm_gateway.h"

namespace tidepool::syncer {

struct DrainOutcome {
  slurm::rest::Node node;  // after the update; before it without ReadBack::kYes
  bool changed = false;    // false when the node already was as asked
};

// Whether the caller needs the node as it is after the update (one more REST call).
enum class ReadBack { kNo, kYes };

class NodeDrainer {
 public:
  NodeDrainer(SlurmGateway& slurm, NodePoller& poller) : slurm_(slurm), poller_(poller) {}

  // InvalidArgument for a malformed request, NotFound for an unknown node,
  // FailedPrecondition when the policy refuses, Slurm's errors otherwise.
  absl::StatusOr<DrainOutcome> Apply(const DrainRequest& request, absl::string_view requester,
                                     ReadBack read_back);

 private:
  SlurmGateway& slurm_;
  NodePoller& poller_;
  common::KeyedMutex node_locks_;
};

}  // namespace tidepool::syncer

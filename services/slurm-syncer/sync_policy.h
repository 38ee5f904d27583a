#pragma once

// The two-way sync as pure decisions, one Slurm node at a time:
//
//   Kubernetes → Slurm: the drain a slurmd pod and its Node call for (terminating pod,
//   cordoned Node, a configured Node condition, pod not ready, in that order of
//   precedence), and the one change that brings Slurm there. The sync edits only the
//   drains it makes itself (SyncCause): a person's drain, Slurm's DOWN, and other
//   Tidepool drains ("k8s: scale-in", "k8s: update" from the nodeset-controller) are
//   left alone.
//   Slurm → Kubernetes: the pod's annotations, its SlurmNodeReady condition and its
//   SlurmNodeInUse readiness gate (False once drained or down and idle), the Node's
//   SlurmDrain / SlurmCordon / SlurmNotResponding conditions and drain annotation, as
//   patches — or nothing when the objects already say it.

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "drain_policy.h"
#include "k8s_observation.h"
#include "slurm/rest/model.h"
#include "tidepool/contract.h"

namespace tidepool::syncer {

// The pod's SlurmNodeInUse readiness gate: jobs run on the node (Busy), or Slurm may
// start some (neither drained nor down). False: evicting the pod ends no job.
bool SlurmNodeInUse(const slurm::rest::Node& slurm);

// True for the reasons the two-way sync makes (and so may clear).
bool IsSyncCause(absl::string_view reason);

// The drain the Kubernetes side calls for, or nullopt for none. `node` may be null
// (the pod's Node is not known yet).
std::optional<std::string> DesiredDrainReason(const PodObservation& pod,
                                              const NodeObservation* node,
                                              const std::vector<std::string>& drain_conditions);

// The update that brings the Slurm node to `desired` (nullopt: no drain), or nullopt
// when nothing is to be done.
std::optional<DrainRequest> PlanSlurmUpdate(const std::optional<std::string>& desired,
                                            const slurm::rest::Node& slurm);

// A JSON merge patch for the pod's tidepool.dev/slurm-state and -reason annotations.
std::optional<std::string> PodAnnotationPatch(const PodObservation& pod,
                                              const slurm::rest::Node& slurm);
// A server-side apply body for the pod's status conditions SlurmNodeReady and
// SlurmNodeInUse (api::kSlurmNodeInUseCondition).
std::optional<std::string> PodConditionApply(const PodObservation& pod,
                                             const slurm::rest::Node& slurm, absl::Time now);
// A server-side apply body for the Node's Slurm conditions.
std::optional<std::string> NodeConditionsApply(const NodeObservation& node,
                                               const slurm::rest::Node& slurm, absl::Time now);
// A JSON merge patch setting or removing the Node's tidepool.dev/drain annotation.
std::optional<std::string> NodeAnnotationPatch(const NodeObservation& node,
                                               const slurm::rest::Node& slurm);

// How a condition write for one object ended.
enum class ConditionWrite {
  kNotNeeded,  // the object already said it
  kWritten,
  kGone,  // the object was deleted meanwhile (NotFound)
};
// Whether Slurm's state now shows on the pod or its Node after their condition writes
// (`node` nullopt: the pod's Node is not known): what the outside-drain latency times.
bool ShownInKubernetes(ConditionWrite pod, std::optional<ConditionWrite> node);

}  // namespace tidepool::syncer

#pragma once

// From API objects (as the informers cache them) to what the plan reads: the pods of a
// NodeSet, and the Nodes it may use given every NodeSet of its cluster. Pure.

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "k8s/informer.h"
#include "plan.h"
#include "tidepool/pod_view.h"
#include "tidepool/v1/meta.pb.h"
#include "tidepool/v1/node_set.pb.h"

namespace tidepool::nodeset {

// A slurmd pod as the plan sees it: from its view, from the informer's cached object (the
// view its informer parsed once, api::PodViewOf), or from its JSON (parsed to the view).
ObservedPod ObservePod(const api::PodView& pod);
absl::StatusOr<ObservedPod> ObservePod(const k8s::CachedObject& pod);
absl::StatusOr<ObservedPod> ObservePod(absl::string_view pod_json);
// The cached pod when `owner_uid` is its controller (a namesake's pod or an unreadable one:
// nullopt). Reads the view when the informer keeps one, as it may keep no JSON then.
std::optional<ObservedPod> ObserveControlledPod(const k8s::CachedObject& pod,
                                                absl::string_view owner_uid);

// The Nodes `node_set` may use: PlanMembers over the NodeSets of its cluster with their
// replicas caps lifted (the cap chooses among a NodeSet's own Nodes, in the plan, and must
// not hand its other Nodes to a sibling), so a Node belongs to at most one NodeSet.
// `siblings` includes `node_set`. As for a DaemonSet, every NodeSet tolerates the taints
// of DaemonTolerations(), and a NoSchedule taint keeps new pods off a Node but does not
// push out the pod already there: NoSchedule taints of the Nodes in `hosting` (Nodes that
// run a slurmd pod of this cluster) are ignored, so a Node that turns NotReady or gets a
// pressure taint keeps its slurmd (Slurm drains it instead).
// `nodes` are shared with the cache that holds them (none is copied but a hosting Node
// with a NoSchedule taint); null entries are skipped.
using SharedNodeInfo = std::shared_ptr<const tidepool::v1::NodeInfo>;
std::vector<FeasibleNode> FeasibleNodesFor(const tidepool::v1::NodeSet& node_set,
                                           std::vector<tidepool::v1::NodeSet> siblings,
                                           std::vector<SharedNodeInfo> nodes,
                                           const std::set<std::string>& hosting,
                                           std::vector<std::string>& warnings);

// The tolerations a DaemonSet's pods get, which slurmd pods get too: NoExecute for
// not-ready and unreachable (no eviction when the Node has trouble; Slurm sees it), and
// NoSchedule for unschedulable (a cordon drains in Slurm, it does not remove slurmd) and
// the pressure conditions. JSON array text.
const char* DaemonTolerations();

// spec.updateStrategy.rollingUpdate.maxUnavailable as text ("1", "25%"; "1" when unset).
std::string MaxUnavailableText(const tidepool::v1::NodeSet& node_set);
UpdateStrategyType StrategyOf(const tidepool::v1::NodeSet& node_set);

}  // namespace tidepool::nodeset

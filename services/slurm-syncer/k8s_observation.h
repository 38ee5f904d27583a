#pragma once

// What the two-way sync needs to know of a slurmd pod and of its Kubernetes Node: the
// part of their typed views (libs/tidepool/pod_view.h, node_view.h) its policy reads.

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "k8s/conditions.h"
#include "k8s/informer.h"
#include "tidepool/contract.h"
#include "tidepool/node_view.h"
#include "tidepool/pod_view.h"

namespace tidepool::syncer {

using ConditionView = k8s::Condition;

struct PodObservation {
  std::string ns;
  std::string name;
  std::string slurm_node;      // label tidepool.dev/slurm-node, else the pod name
  std::string node_name;       // spec.nodeName
  std::string controller_uid;  // the ownerReference with controller: true
  bool ready = false;          // PodView::ready: the containers are ready
  bool terminating = false;
  std::map<std::string, std::string> annotations;
  std::map<std::string, ConditionView> conditions;  // by type
};

struct NodeObservation {
  std::string name;
  bool unschedulable = false;
  std::string cordon_reason;  // api::kCordonReasonAnnotation
  std::map<std::string, std::string> annotations;
  std::map<std::string, ConditionView> conditions;  // by type
};

PodObservation ObservePod(api::PodView pod);
NodeObservation ObserveNode(api::NodeView node);
// The same from the informers' cached objects: the views their informers parsed once
// when storing them (parse_view), else parsed from their JSON.
absl::StatusOr<PodObservation> ObservePod(const k8s::CachedObject& pod);
absl::StatusOr<NodeObservation> ObserveNode(const k8s::CachedObject& node);
// The same from the objects' JSON (parsed to their views).
absl::StatusOr<PodObservation> ObservePod(absl::string_view json);
absl::StatusOr<NodeObservation> ObserveNode(absl::string_view json);

}  // namespace tidepool::syncer

#include "k8s_observation.h"

#include <utility>

namespace tidepool::syncer {

PodObservation ObservePod(api::PodView pod) {
  return {.ns = std::move(pod.ns),
          .name = std::move(pod.name),
          .slurm_node = std::move(pod.slurm_node),
          .node_name = std::move(pod.node_name),
          .controller_uid = std::move(pod.controller_uid),
          .ready = pod.ready,
          .terminating = pod.deleting,
          .annotations = std::move(pod.annotations),
          .conditions = std::move(pod.conditions)};
}

NodeObservation ObserveNode(api::NodeView node) {
  return {.name = std::move(node.name),
          .unschedulable = node.unschedulable,
          .cordon_reason = std::move(node.cordon_reason),
          .annotations = std::move(node.annotations),
          .conditions = std::move(node.conditions)};
}

absl::StatusOr<PodObservation> ObservePod(const k8s::CachedObject& pod) {
  absl::StatusOr<api::PodView> view = api::PodViewOf(pod);
  if (!view.ok()) return view.status();
  return ObservePod(*std::move(view));
}

absl::StatusOr<NodeObservation> ObserveNode(const k8s::CachedObject& node) {
  absl::StatusOr<api::NodeView> view = api::NodeViewOf(node, api::NodeModel::kSkip);
  if (!view.ok()) return view.status();
  return ObserveNode(*std::move(view));
}

absl::StatusOr<PodObservation> ObservePod(absl::string_view json) {
  absl::StatusOr<api::PodView> pod = api::ParsePodView(json);
  if (!pod.ok()) return pod.status();
  return ObservePod(*std::move(pod));
}

absl::StatusOr<NodeObservation> ObserveNode(absl::string_view json) {
  // The drain inputs only: the two-way sync does not read taints or allocatable.
  absl::StatusOr<api::NodeView> node = api::ParseNodeView(json, api::NodeModel::kSkip);
  if (!node.ok()) return node.status();
  return ObserveNode(*std::move(node));
}

}  // namespace tidepool::syncer

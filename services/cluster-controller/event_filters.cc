#include "event_filters.h"

#include <google/protobuf/util/message_differencer.h>

#include <string>

#include "render_inputs.h"
#include "tidepool/contract.h"
#include "tidepool/node_view.h"
#include "tidepool/pod_view.h"

namespace tidepool::cluster {
namespace {

// The pod as the sync may read it: without slurm-syncer's own writes (its Slurm state and
// reason annotations) and without conditions, which the sync never reads and the
// informer's views do not keep (controller.cc); `ready` was read from them before.
struct PodSyncInputs {
  api::PodView view;

  bool operator==(const PodSyncInputs& other) const {
    const api::PodView& a = view;
    const api::PodView& b = other.view;
    return a.ns == b.ns && a.name == b.name && a.uid == b.uid && a.slurm_node == b.slurm_node &&
           a.node_set == b.node_set && a.cluster == b.cluster &&
           a.controller_uid == b.controller_uid && a.node_name == b.node_name &&
           a.phase == b.phase && a.ready == b.ready && a.deleting == b.deleting &&
           a.template_hash == b.template_hash && a.annotations == b.annotations;
  }
};

std::optional<PodSyncInputs> SyncInputsOf(const k8s::CachedObject& pod) {
  absl::StatusOr<api::PodView> view = api::PodViewOf(pod);
  if (!view.ok()) {
    return std::nullopt;
  }
  PodSyncInputs inputs{.view = *std::move(view)};
  inputs.view.annotations.erase(api::kSlurmStateAnnotation);
  inputs.view.annotations.erase(api::kSlurmReasonAnnotation);
  return inputs;
}

}  // namespace

bool NodeRenderInputChanged(const k8s::CachedObject& before, const k8s::CachedObject& after) {
  const auto* stored_before = before.ViewAs<api::NodeView>();
  const auto* stored_after = after.ViewAs<api::NodeView>();
  // The informer's views hold the render input only (NodeViewForRender): compared as stored,
  // not copied and reduced again on every heartbeat. A view that kept more (another
  // parse_view) compares as changed more often, never less.
  if (stored_before != nullptr && stored_after != nullptr && stored_before->info.ok() &&
      stored_after->info.ok()) {
    return !google::protobuf::util::MessageDifferencer::Equals(*stored_before->info,
                                                               *stored_after->info);
  }
  return api::NodeInfoChanged(before, after, KeepRenderInputOnly);
}

bool PodChangeMatters(const k8s::CachedObject& before, const k8s::CachedObject& after) {
  std::optional<PodSyncInputs> a = SyncInputsOf(before);
  std::optional<PodSyncInputs> b = SyncInputsOf(after);
  return !a.has_value() || !b.has_value() || !(*a == *b);
}

}  // namespace tidepool::cluster

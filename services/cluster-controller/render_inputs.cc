#include "render_inputs.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/util/message_differencer.h"
#include "k8s/object_json.h"
#include "tidepool/cluster_ref.h"
#include "tidepool/contract.h"
#include "tidepool/naming.h"
#include "tidepool/resources.h"

namespace tidepool::cluster {
namespace {

google::protobuf::ArenaOptions RequestArenaOptions() {
  // At glibc's mmap threshold (common::ReturnLargeBlocksAtOnce): each block is a mapping.
  constexpr size_t kBlockBytes = size_t{1} << 20;
  google::protobuf::ArenaOptions options;
  options.start_block_size = kBlockBytes;
  options.max_block_size = kBlockBytes;
  return options;
}

void AddNodeSets(const ClusterObjects& objects, RenderInputs& inputs) {
  const v1::SlurmCluster& cluster = inputs.request->cluster();
  for (const std::string& json : objects.node_set_jsons) {
    absl::StatusOr<v1::NodeSet> node_set = api::ParseNodeSet(json);
    if (!node_set.ok()) {
      // Its nodes cannot be rendered, and left out they would leave Slurm with their jobs.
      std::optional<std::string> cluster_ref = api::NodeSetClusterName(json);
      if (!cluster_ref.has_value() || *cluster_ref == cluster.metadata().name()) {
        inputs.blocking.push_back(std::string(node_set.status().message()));
      }
      continue;
    }
    if (node_set->metadata().namespace_() != cluster.metadata().namespace_() ||
        node_set->spec().cluster_ref().name() != cluster.metadata().name()) {
      continue;
    }
    *inputs.request->add_node_sets() = *std::move(node_set);
  }
  std::sort(inputs.request->mutable_node_sets()->begin(),
            inputs.request->mutable_node_sets()->end(),
            [](const v1::NodeSet& a, const v1::NodeSet& b) {
              return a.metadata().name() < b.metadata().name();
            });
}

// The Node `name` as the API model has it: from its view when the caller keeps views,
// else parsed from its JSON.
absl::Status CopyNodeInfo(const ClusterObjects& objects, const std::string& name,
                          const api::LabelKeys& labels, v1::NodeInfo& out) {
  if (objects.node_view) {
    std::shared_ptr<const api::NodeView> view = objects.node_view(name);
    if (view != nullptr) {
      if (!view->info.ok()) return view->info.status();
      CopyRenderInput(*view->info, labels, out);
      return absl::OkStatus();
    }
  }
  const std::string node_json = objects.node_json ? objects.node_json(name) : "";
  if (node_json.empty()) return absl::NotFoundError("not in the cache");
  absl::StatusOr<v1::NodeInfo> parsed = api::ParseNode(node_json);
  if (!parsed.ok()) return parsed.status();
  CopyRenderInput(*parsed, labels, out);
  return absl::OkStatus();
}

// NodeSet name → the NodeSet in the request, for the cluster's NodeSets.
using NodeSetsByName = std::map<std::string, const v1::NodeSet*>;

// The attributes `pod` was made with when they differ from its NodeSet's current ones;
// nullopt when they do not (or the pod predates the annotation).
absl::StatusOr<std::optional<v1::NodeSetSlurm>> PinnedAttributes(const api::PodView& pod,
                                                                 const v1::NodeSet& node_set) {
  auto annotation = pod.annotations.find(api::kSlurmAttributesAnnotation);
  if (annotation == pod.annotations.end()) return std::nullopt;
  absl::StatusOr<v1::NodeSetSlurm> made_with = api::ParseNodeSetSlurm(
      annotation->second,
      absl::StrCat(pod.Key(), ": annotation ", api::kSlurmAttributesAnnotation));
  if (!made_with.ok()) return made_with.status();
  if (google::protobuf::util::MessageDifferencer::Equals(*made_with, node_set.spec().slurm())) {
    return std::nullopt;
  }
  return *std::move(made_with);
}

void AddMember(const ClusterObjects& objects, const api::PodView& pod,
               const NodeSetsByName& node_sets, const api::LabelKeys& labels,
               RenderInputs& inputs) {
  auto node_set = node_sets.find(pod.node_set);
  if (node_set == node_sets.end()) {
    inputs.skipped.push_back(
        absl::StrCat(pod.Key(), ": NodeSet \"", pod.node_set, "\" is not one of the cluster's"));
    return;
  }
  // Labels are anyone's to set: only a pod the NodeSet controls becomes a Slurm node.
  if (pod.controller_uid.empty() || pod.controller_uid != node_set->second->metadata().uid()) {
    inputs.skipped.push_back(
        absl::StrCat(pod.Key(), ": not controlled by NodeSet ", pod.node_set, " (ownerReference)"));
    return;
  }
  if (pod.node_name.empty()) {
    inputs.skipped.push_back(absl::StrCat(pod.Key(), ": not bound to a Node yet"));
    return;
  }
  // A node keeps the CPUs, memory and GRES its pod was made with until the rolling update
  // has drained and replaced it: Slurm ends the jobs of a node that lost some.
  absl::StatusOr<std::optional<v1::NodeSetSlurm>> pinned = PinnedAttributes(pod, *node_set->second);
  if (!pinned.ok()) {
    inputs.blocking.push_back(std::string(pinned.status().message()));
    return;
  }
  v1::MemberNode* member = inputs.request->add_members();
  if (absl::Status node = CopyNodeInfo(objects, pod.node_name, labels, *member->mutable_node());
      !node.ok()) {
    inputs.request->mutable_members()->RemoveLast();
    // A bound slurmd may run jobs: its node must not drop out of the configuration.
    inputs.blocking.push_back(
        absl::StrCat(pod.Key(), ": Node ", pod.node_name, ": ", node.message()));
    return;
  }
  member->set_slurm_node_name(pod.slurm_node);
  member->set_node_set(pod.node_set);
  if (pinned->has_value()) member->mutable_slurm()->CopyFrom(**pinned);
}

}  // namespace

void CopyRenderInput(const v1::NodeInfo& from, const api::LabelKeys& labels, v1::NodeInfo& to) {
  to.Clear();
  to.mutable_metadata()->set_name(from.metadata().name());
  const auto& from_labels = from.metadata().labels();
  auto& to_labels = *to.mutable_metadata()->mutable_labels();
  for (const std::string& key : labels) {
    if (auto label = from_labels.find(key); label != from_labels.end()) {
      to_labels.insert(*label);
    }
  }
  *to.mutable_allocatable() = from.allocatable();
}

void KeepRenderInputOnly(v1::NodeInfo& node) {
  // Moved, not copied: cluster-controller's Node informer runs this on every Node event,
  // heartbeats included. What CopyRenderInput copies, all labels, and nothing else.
  v1::NodeInfo kept;
  kept.mutable_metadata()->set_name(std::move(*node.mutable_metadata()->mutable_name()));
  kept.mutable_metadata()->mutable_labels()->swap(*node.mutable_metadata()->mutable_labels());
  kept.mutable_allocatable()->swap(*node.mutable_allocatable());
  node.Swap(&kept);
}

std::any NodeViewForRender(absl::string_view json) {
  absl::StatusOr<api::NodeView> view =
      api::ParseNodeView(json, api::NodeModel::kRead, api::ViewKeeps::Only({}, {}));
  if (!view.ok()) return {};
  if (view->info.ok()) KeepRenderInputOnly(*view->info);
  return *std::move(view);
}

std::function<std::any(absl::string_view)> NodeViewForRenderKeeping(
    std::shared_ptr<const api::NodeLabelKeys> labels) {
  return [labels = std::move(labels)](absl::string_view json) -> std::any {
    std::any view = NodeViewForRender(json);
    if (auto* node = std::any_cast<api::NodeView>(&view); node != nullptr && node->info.ok()) {
      labels->Filter(*node->info->mutable_metadata()->mutable_labels());
    }
    return view;
  };
}

RenderInputs::RenderInputs()
    : arena(std::make_unique<google::protobuf::Arena>(RequestArenaOptions())),
      request(google::protobuf::Arena::CreateMessage<v1::RenderRequest>(arena.get())) {}

absl::StatusOr<RenderInputs> BuildRenderInputs(const ClusterObjects& objects,
                                               const v1::RenderEnvironment& environment) {
  absl::StatusOr<v1::SlurmCluster> cluster = api::ParseSlurmCluster(objects.cluster_json);
  if (!cluster.ok()) return cluster.status();
  RenderInputs inputs;
  *inputs.request->mutable_cluster() = *std::move(cluster);
  *inputs.request->mutable_environment() = environment;
  AddNodeSets(objects, inputs);
  NodeSetsByName node_sets;
  for (const v1::NodeSet& node_set : inputs.request->node_sets()) {
    node_sets[node_set.metadata().name()] = &node_set;
  }
  std::vector<api::PodView> parsed;
  parsed.reserve(objects.pod_jsons.size());  // `pods` points into it
  for (const std::string& json : objects.pod_jsons) {
    absl::StatusOr<api::PodView> pod = api::ParsePodView(json);
    if (!pod.ok()) {
      inputs.blocking.push_back(absl::StrCat("a slurmd pod: ", pod.status().message()));
      continue;
    }
    parsed.push_back(*std::move(pod));
  }
  std::vector<const api::PodView*> pods;
  pods.reserve(objects.pods.size() + parsed.size());
  for (const auto& pod : objects.pods) pods.push_back(pod.get());
  for (const api::PodView& pod : parsed) pods.push_back(&pod);
  std::sort(pods.begin(), pods.end(), [](const api::PodView* a, const api::PodView* b) {
    return a->slurm_node < b->slurm_node;
  });
  const api::LabelKeys labels =
      api::RenderLabelKeys(inputs.request->cluster(), inputs.request->node_sets());
  if (objects.require_node_labels) {
    if (absl::Status kept = objects.require_node_labels(labels); !kept.ok()) return kept;
  }
  for (const api::PodView* pod : pods) AddMember(objects, *pod, node_sets, labels, inputs);
  if (!inputs.blocking.empty()) {
    constexpr size_t kNamed = 5;
    const size_t named = std::min(kNamed, inputs.blocking.size());
    return absl::FailedPreconditionError(absl::StrCat(
        "not rendered: ", inputs.blocking.size(),
        " input(s) cannot be read, and rendering "
        "without them would drop live nodes from Slurm: ",
        absl::StrJoin(inputs.blocking.begin(),
                      inputs.blocking.begin() + static_cast<std::ptrdiff_t>(named), "; "),
        inputs.blocking.size() > named ? "; …" : ""));
  }
  return inputs;
}

}  // namespace tidepool::cluster

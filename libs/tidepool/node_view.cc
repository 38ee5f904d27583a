#include "tidepool/node_view.h"

#include <utility>

#include "google/protobuf/util/message_differencer.h"
#include "k8s/object_json.h"
#include "rapidjson/document.h"
#include "tidepool/contract.h"
#include "tidepool/resources.h"

namespace tidepool::api {

absl::StatusOr<NodeView> ParseNodeView(absl::string_view json, NodeModel model,
                                       const ViewKeeps& keeps) {
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(json, "Node");
  if (!doc.ok()) return doc.status();
  NodeView node;
  if (const rapidjson::Value* metadata = k8s::FindMember(*doc, "metadata")) {
    node.name = k8s::StringMember(*metadata, "name");
    if (const rapidjson::Value* annotations = k8s::FindMember(*metadata, "annotations")) {
      node.cordon_reason = k8s::StringMember(*annotations, kCordonReasonAnnotation);
      node.annotations = StringMap(
          annotations, [&keeps](absl::string_view key) { return keeps.KeepsAnnotation(key); });
    }
  }
  if (const rapidjson::Value* spec = k8s::FindMember(*doc, "spec")) {
    node.unschedulable = k8s::BoolMember(*spec, "unschedulable");
  }
  node.conditions = k8s::ReadConditions(
      *doc, [&keeps](absl::string_view type) { return keeps.KeepsCondition(type); },
      IsWrittenByTidepool);
  node.ready = k8s::ReadConditionStatus(*doc, kReadyCondition) == "True";
  if (model == NodeModel::kRead) {
    node.info = ParseNode(json);
    if (node.info.ok()) node.info->mutable_metadata()->clear_annotations();
  } else {
    node.info = absl::FailedPreconditionError("the Node's model was not read (NodeModel::kSkip)");
  }
  return node;
}

std::any NodeViewForCache(absl::string_view json) {
  absl::StatusOr<NodeView> node = ParseNodeView(json, NodeModel::kRead);
  if (!node.ok()) return {};
  return *std::move(node);
}

std::function<std::any(absl::string_view)> NodeViewForCacheKeeping(
    NodeModel model, ViewKeeps keeps, std::shared_ptr<const NodeLabelKeys> labels) {
  return [model, keeps = std::move(keeps),
          labels = std::move(labels)](absl::string_view json) -> std::any {
    absl::StatusOr<NodeView> node = ParseNodeView(json, model, keeps);
    if (!node.ok()) return {};
    if (labels != nullptr && node->info.ok()) {
      labels->Filter(*node->info->mutable_metadata()->mutable_labels());
    }
    return *std::move(node);
  };
}

absl::StatusOr<NodeView> NodeViewOf(const k8s::CachedObject& object, NodeModel model) {
  if (const NodeView* view = object.ViewAs<NodeView>()) return *view;
  return ParseNodeView(object.json, model);
}

absl::StatusOr<tidepool::v1::NodeInfo> NodeInfoOf(const k8s::CachedObject& object) {
  const NodeView* view = object.ViewAs<NodeView>();
  if (view != nullptr && !absl::IsFailedPrecondition(view->info.status())) return view->info;
  if (view != nullptr && object.json.empty()) {
    return absl::FailedPreconditionError(
        "the cache keeps only the Node's drain inputs (no model, no JSON)");
  }
  return ParseNode(object.json);
}

void ClearVersionAndAnnotations(tidepool::v1::NodeInfo& node) {
  node.mutable_metadata()->clear_resource_version();
  node.mutable_metadata()->clear_annotations();
}

bool NodeInfoChanged(const k8s::CachedObject& before, const k8s::CachedObject& after,
                     NodeInfoNormalizer normalize) {
  absl::StatusOr<tidepool::v1::NodeInfo> a = NodeInfoOf(before);
  absl::StatusOr<tidepool::v1::NodeInfo> b = NodeInfoOf(after);
  if (!a.ok() || !b.ok()) {
    return true;
  }
  normalize(*a);
  normalize(*b);
  // Not a comparison of serialized bytes: map fields (labels, allocatable) serialize in
  // no fixed order.
  return !google::protobuf::util::MessageDifferencer::Equals(*a, *b);
}

}  // namespace tidepool::api

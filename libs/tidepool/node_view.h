#pragma once

// What Tidepool reads of a Kubernetes Node, read once from its JSON: the syncer's drain
// inputs (cordon, conditions, annotations) and the API model's NodeInfo (labels, taints,
// allocatable) that feasibility and rendering take.

#include <any>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "k8s/conditions.h"
#include "k8s/informer.h"
#include "tidepool/node_label_keys.h"
#include "tidepool/v1/meta.pb.h"
#include "tidepool/view_fields.h"

namespace tidepool::api {

struct NodeView {
  std::string name;
  // Labels are in info's metadata only. Every cache of 10,000 Nodes holds a view of each,
  // so no field is kept twice.
  // The annotations the parse kept (all, or those its ViewKeeps lists).
  std::map<std::string, std::string> annotations;
  bool unschedulable = false;  // spec.unschedulable: cordoned
  std::string cordon_reason;   // kCordonReasonAnnotation
  bool ready = false;          // condition Ready is True
  // status.conditions by type (all, or those its ViewKeeps lists); the details (reason,
  // message, times) only of the types Tidepool writes (IsWrittenByTidepool), the status
  // alone of the others.
  std::map<std::string, k8s::Condition> conditions;
  // The Node as the API model has it (ParseNode: metadata, taints, unschedulable,
  // allocatable) but without annotations (in `annotations` above; the model's readers
  // take none), or why it cannot be read so; the fields above do not depend on it.
  // FailedPrecondition when parsed with NodeModel::kSkip.
  absl::StatusOr<tidepool::v1::NodeInfo> info;
};

// Whether ParseNodeView fills NodeView::info. The model's reading (protobuf, strict) costs
// several times the rest; a reader that needs only the drain inputs skips it.
enum class NodeModel { kRead, kSkip };

// InvalidArgument when `json` is not a JSON object. Missing or mistyped fields read as
// empty (a Node the API server accepted has none). Of the annotations and conditions, the
// view has those `keeps` names only; cordon_reason and ready are read from all of them.
absl::StatusOr<NodeView> ParseNodeView(absl::string_view json, NodeModel model = NodeModel::kRead,
                                       const ViewKeeps& keeps = {});

// For k8s::InformerOptions::parse_view: the NodeView with its model read, or an empty
// std::any when the Node cannot be read (readers then use the JSON).
std::any NodeViewForCache(absl::string_view json);
// The same read with `model` and `keeps`, for a service that caches thousands of Nodes and
// reads a part of each: without the model (NodeModel::kSkip) for a reader of the drain
// inputs only; of the annotations and conditions, the ones its readers look at. Without
// annotations and conditions a Node's view is about 1.5 KB smaller (cache_memory_bench).
// With `labels`, the model keeps the labels it keeps only (shared with the readers that
// Require them); without, all.
std::function<std::any(absl::string_view)> NodeViewForCacheKeeping(
    NodeModel model, ViewKeeps keeps, std::shared_ptr<const NodeLabelKeys> labels = nullptr);

// A cached Node's view: the one its informer parsed when it stored the Node (parse_view =
// NodeViewForCache or NodeViewForCacheKeeping), else parsed from its JSON now with `model` (an
// informer without views, a test's). A stored view is returned as stored: whether it has the model,
// and which annotations and conditions, is the informer's parse_view's choice.
absl::StatusOr<NodeView> NodeViewOf(const k8s::CachedObject& object,
                                    NodeModel model = NodeModel::kRead);
// A cached Node as the API model has it: the model its stored view holds, else read from
// its JSON (without a view, or with one parsed with NodeModel::kSkip).
absl::StatusOr<tidepool::v1::NodeInfo> NodeInfoOf(const k8s::CachedObject& object);

// Clears what a reader of a Node's model does not look at before two are compared.
using NodeInfoNormalizer = void (*)(tidepool::v1::NodeInfo& node);
// Clears resourceVersion and annotations: what every change bumps, and what the model's
// readers take from NodeView::annotations.
void ClearVersionAndAnnotations(tidepool::v1::NodeInfo& node);

// Whether a Node's model changed, after `normalize` on both sides. By default labels,
// taints, unschedulable and allocatable: what decides which NodeSet may use it and what its
// Slurm node renders as. Heartbeats and conditions never are; a Node either side cannot
// read counts as changed.
bool NodeInfoChanged(const k8s::CachedObject& before, const k8s::CachedObject& after,
                     NodeInfoNormalizer normalize = ClearVersionAndAnnotations);

}  // namespace tidepool::api

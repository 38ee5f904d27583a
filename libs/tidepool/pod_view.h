#pragma once

// What Tidepool reads of a slurmd pod, read once from its Kubernetes JSON: the
// nodeset-controller (its plan), the slurm-syncer (the two-way sync) and the
// cluster-controller (the render request) all read these fields and no others.

#include <any>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "k8s/conditions.h"
#include "k8s/informer.h"
#include "tidepool/view_fields.h"

namespace tidepool::api {

struct PodView {
  std::string ns;
  std::string name;
  std::string uid;
  // Labels (contract.h): the Slurm node name (the pod's name when unlabelled), the NodeSet
  // and the SlurmCluster.
  std::string slurm_node;
  std::string node_set;
  std::string cluster;
  std::string controller_uid;  // the ownerReference with controller: true
  std::string node_name;       // spec.nodeName ("" until bound)
  std::string phase;           // status.phase
  // ContainersReady is True (Ready when the pod has no ContainersReady): the slurmd
  // container's own readiness, not the SlurmNodeInUse readiness gate's.
  bool ready = false;
  bool deleting = false;      // metadata.deletionTimestamp is set
  std::string template_hash;  // kTemplateHashAnnotation
  // The annotations the parse kept (all, or those its ViewKeeps lists).
  std::map<std::string, std::string> annotations;
  // status.conditions by type (all, or those its ViewKeeps lists); the details (reason,
  // message, times) only of the types Tidepool writes (IsWrittenByTidepool), the status
  // alone of the others.
  std::map<std::string, k8s::Condition> conditions;

  // "<namespace>/<name>".
  std::string Key() const { return ns + "/" + name; }
};

// InvalidArgument when `json` is not a JSON object or has no metadata. Mistyped fields
// read as empty (a pod the API server accepted has none). Of the annotations and conditions,
// the view has those `keeps` names only; template_hash and ready are read from all of them.
absl::StatusOr<PodView> ParsePodView(absl::string_view json, const ViewKeeps& keeps = {});

// For k8s::InformerOptions::parse_view: the PodView, or an empty std::any when the pod
// cannot be read (CachedObject::ViewAs<PodView>() is then null and readers use the JSON).
std::any PodViewForCache(absl::string_view json);

// PodViewForCache reading of the annotations and conditions only those `keeps` lists, for a
// service that caches thousands of pods (template_hash and ready are read from all of them).
// A slurmd pod's conditions are most of its view: without them a pod's view is about
// 2.4 KB smaller (cache_memory_bench).
std::function<std::any(absl::string_view)> PodViewForCacheKeeping(ViewKeeps keeps);

// A cached pod's view: the one its informer parsed when it stored the pod (parse_view =
// PodViewForCache or PodViewForCacheKeeping, whose annotations and conditions it has),
// else parsed from its JSON now (an informer without views, a test's).
absl::StatusOr<PodView> PodViewOf(const k8s::CachedObject& object);

// The same view without copying it, for readers that keep none of it: the informer's in
// place, or parsed into `parsed` (which then holds it). Null when the pod cannot be read.
const PodView* PodViewIn(const k8s::CachedObject& object, std::optional<PodView>& parsed);

}  // namespace tidepool::api

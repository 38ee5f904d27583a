#include "tidepool/pod_view.h"

#include <map>
#include <utility>

#include "k8s/object_json.h"
#include "rapidjson/document.h"
#include "tidepool/contract.h"

namespace tidepool::api {

absl::StatusOr<PodView> ParsePodView(absl::string_view json, const ViewKeeps& keeps) {
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(json, "Pod");
  if (!doc.ok()) return doc.status();
  const rapidjson::Value* metadata = k8s::FindMember(*doc, "metadata");
  if (metadata == nullptr || !metadata->IsObject()) {
    return absl::InvalidArgumentError("Pod has no metadata");
  }
  PodView pod;
  pod.ns = k8s::StringMember(*metadata, "namespace");
  pod.name = k8s::StringMember(*metadata, "name");
  pod.uid = k8s::StringMember(*metadata, "uid");
  pod.deleting = !k8s::StringMember(*metadata, "deletionTimestamp").empty();
  if (const rapidjson::Value* labels = k8s::FindMember(*metadata, "labels")) {
    pod.slurm_node = k8s::StringMember(*labels, kSlurmNodeLabel);
    pod.node_set = k8s::StringMember(*labels, kNodeSetLabel);
    pod.cluster = k8s::StringMember(*labels, kClusterLabel);
  }
  if (pod.slurm_node.empty()) pod.slurm_node = pod.name;
  pod.controller_uid = ControllerUid(*metadata);
  if (const rapidjson::Value* annotations = k8s::FindMember(*metadata, "annotations")) {
    pod.template_hash = k8s::StringMember(*annotations, kTemplateHashAnnotation);
    pod.annotations = StringMap(
        annotations, [&keeps](absl::string_view key) { return keeps.KeepsAnnotation(key); });
  }
  if (const rapidjson::Value* spec = k8s::FindMember(*doc, "spec")) {
    pod.node_name = k8s::StringMember(*spec, "nodeName");
  }
  if (const rapidjson::Value* status = k8s::FindMember(*doc, "status")) {
    pod.phase = k8s::StringMember(*status, "phase");
  }
  pod.conditions = k8s::ReadConditions(
      *doc, [&keeps](absl::string_view type) { return keeps.KeepsCondition(type); },
      IsWrittenByTidepool);
  // The containers' readiness, not Ready: Ready also waits on the SlurmNodeInUse gate,
  // which is False for a drained idle node, and reading that as "pod not ready" would
  // keep the node drained for good. A pod without ContainersReady (written by hand, an
  // old kubelet) is read by Ready.
  pod.ready =
      k8s::ReadFirstConditionStatus(*doc, {kContainersReadyCondition, kReadyCondition}) == "True";
  return pod;
}

std::any PodViewForCache(absl::string_view json) {
  absl::StatusOr<PodView> pod = ParsePodView(json);
  if (!pod.ok()) return {};
  return *std::move(pod);
}

std::function<std::any(absl::string_view)> PodViewForCacheKeeping(ViewKeeps keeps) {
  return [keeps = std::move(keeps)](absl::string_view json) -> std::any {
    absl::StatusOr<PodView> pod = ParsePodView(json, keeps);
    if (!pod.ok()) return {};
    return *std::move(pod);
  };
}

absl::StatusOr<PodView> PodViewOf(const k8s::CachedObject& object) {
  if (const PodView* view = object.ViewAs<PodView>()) return *view;
  return ParsePodView(object.json);
}

const PodView* PodViewIn(const k8s::CachedObject& object, std::optional<PodView>& parsed) {
  if (const PodView* view = object.ViewAs<PodView>()) return view;
  absl::StatusOr<PodView> read = ParsePodView(object.json);
  if (!read.ok()) return nullptr;
  parsed = *std::move(read);
  return &*parsed;
}

}  // namespace tidepool::api

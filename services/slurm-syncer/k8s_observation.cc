#include "k8s_observation.h"

#include "k8s/object_json.h"
#include "tidepool/naming.h"

namespace tidepool::syncer {
namespace {

using k8s::FindMember;
using k8s::StringMember;

std::map<std::string, std::string> StringMap(const rapidjson::Value* object) {
  std::map<std::string, std::string> out;
  if (object == nullptr || !object->IsObject()) return out;
  for (const auto& member : object->GetObject()) {
    if (member.value.IsString()) out[member.name.GetString()] = member.value.GetString();
  }
  return out;
}

const rapidjson::Value& Metadata(const rapidjson::Value& object) {
  static const rapidjson::Value kEmpty(rapidjson::kObjectType);
  const rapidjson::Value* metadata = FindMember(object, "metadata");
  return metadata != nullptr && metadata->IsObject() ? *metadata : kEmpty;
}

}  // namespace

absl::StatusOr<PodObservation> ObservePod(absl::string_view json) {
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(json, "pod");
  if (!doc.ok()) return doc.status();
  const rapidjson::Value& metadata = Metadata(*doc);
  PodObservation pod;
  pod.ns = StringMember(metadata, "namespace");
  pod.name = StringMember(metadata, "name");
  const std::map<std::string, std::string> labels = StringMap(FindMember(metadata, "labels"));
  auto label = labels.find(api::kSlurmNodeLabel);
  pod.slurm_node = label != labels.end() ? label->second : pod.name;
  pod.annotations = StringMap(FindMember(metadata, "annotations"));
  pod.terminating = !StringMember(metadata, "deletionTimestamp").empty();
  if (const rapidjson::Value* spec = FindMember(*doc, "spec"); spec != nullptr) {
    pod.node_name = StringMember(*spec, "nodeName");
  }
  pod.conditions = k8s::ReadConditions(*doc);
  auto ready = pod.conditions.find("Ready");
  pod.ready = ready != pod.conditions.end() && ready->second.status == "True";
  return pod;
}

absl::StatusOr<NodeObservation> ObserveNode(absl::string_view json) {
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(json, "node");
  if (!doc.ok()) return doc.status();
  const rapidjson::Value& metadata = Metadata(*doc);
  NodeObservation node;
  node.name = StringMember(metadata, "name");
  node.annotations = StringMap(FindMember(metadata, "annotations"));
  auto reason = node.annotations.find(kCordonReasonAnnotation);
  if (reason != node.annotations.end()) node.cordon_reason = reason->second;
  if (const rapidjson::Value* spec = FindMember(*doc, "spec"); spec != nullptr) {
    node.unschedulable = k8s::BoolMember(*spec, "unschedulable");
  }
  node.conditions = k8s::ReadConditions(*doc);
  return node;
}

}  // namespace tidepool::syncer

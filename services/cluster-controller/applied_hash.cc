#include "applied_hash.h"

#include "k8s/object_json.h"
#include "slurm/conf/content_hash.h"
#include "tidepool/contract.h"

namespace tidepool::cluster {

absl::StatusOr<std::string> StampAppliedHash(absl::string_view body) {
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(body, "apply body");
  if (!doc.ok()) return doc.status();
  const std::string hash = slurm::ContentHash({{"body", std::string(body)}});
  rapidjson::Value& metadata = k8s::ObjectMember(*doc, "metadata", doc->GetAllocator());
  rapidjson::Value& annotations = k8s::ObjectMember(metadata, "annotations", doc->GetAllocator());
  k8s::SetStringMember(annotations, api::kAppliedHashAnnotation, hash, doc->GetAllocator());
  return k8s::ToJson(*doc);
}

std::string AppliedHashOf(absl::string_view object_json) {
  return k8s::AnnotationOf(object_json, api::kAppliedHashAnnotation);
}

}  // namespace tidepool::cluster

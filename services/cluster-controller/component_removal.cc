#include "component_removal.h"

#include "absl/strings/str_cat.h"
#include "k8s/ownership.h"

namespace tidepool::cluster {
namespace {

bool KeepsData(const k8s::ResourceType& type) {
  return &type == &k8s::Secrets() || &type == &k8s::PersistentVolumeClaims() ||
         (type.group.empty() &&
          (type.resource == "secrets" || type.resource == "persistentvolumeclaims"));
}

}  // namespace

std::string ObjectLabel(const k8s::ResourceType& type, absl::string_view name) {
  return absl::StrCat(type.resource, "/", name);
}

RemovalDecision ObjectsToRemove(const std::vector<CachedOwnedObject>& owned,
                                absl::string_view cluster_uid) {
  RemovalDecision decision;
  for (auto it = owned.rbegin(); it != owned.rend(); ++it) {
    if (it->type == nullptr || it->json.empty() || KeepsData(*it->type)) continue;
    absl::StatusOr<k8s::ObjectMeta> meta = k8s::ParseObjectMeta(it->json);
    if (!meta.ok()) continue;
    if (meta->deleting) continue;  // on its way already
    if (!k8s::IsControlledByUid(it->json, cluster_uid)) {
      decision.not_ours.push_back(ObjectLabel(*it->type, it->name));
      continue;
    }
    decision.remove.push_back({.type = it->type, .name = it->name, .uid = meta->uid});
  }
  return decision;
}

}  // namespace tidepool::cluster

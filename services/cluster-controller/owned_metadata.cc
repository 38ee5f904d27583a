#include "owned_metadata.h"

#include "tidepool/contract.h"
#include "tidepool/resources.h"

namespace tidepool::cluster {

void WriteComponentLabels(k8s::JsonWriter& w, const v1::SlurmCluster& cluster,
                          absl::string_view component) {
  w.StartObject();
  k8s::WriteStringMember(w, api::kComponentLabel, component);
  k8s::WriteStringMember(w, api::kClusterLabel, cluster.metadata().name());
  w.EndObject();
}

void WriteOwnedMetadata(k8s::JsonWriter& w, const v1::SlurmCluster& cluster, absl::string_view name,
                        absl::string_view component, Ownership ownership,
                        const std::map<std::string, std::string>& annotations) {
  const v1::ObjectMeta& meta = cluster.metadata();
  w.Key("metadata");
  w.StartObject();
  k8s::WriteStringMember(w, "name", name);
  k8s::WriteStringMember(w, "namespace", meta.namespace_());
  w.Key("labels");
  WriteComponentLabels(w, cluster, component);
  if (!annotations.empty()) {
    w.Key("annotations");
    w.StartObject();
    for (const auto& [key, value] : annotations) k8s::WriteStringMember(w, key, value);
    w.EndObject();
  }
  if (ownership == Ownership::kOwnedByCluster) {
    w.Key("ownerReferences");
    w.StartArray();
    w.StartObject();
    k8s::WriteStringMember(w, "apiVersion", api::kApiVersion);
    k8s::WriteStringMember(w, "kind", "SlurmCluster");
    k8s::WriteStringMember(w, "name", meta.name());
    k8s::WriteStringMember(w, "uid", meta.uid());
    w.Key("controller");
    w.Bool(true);
    w.Key("blockOwnerDeletion");
    w.Bool(true);
    w.EndObject();
    w.EndArray();
  }
  w.EndObject();
}

}  // namespace tidepool::cluster

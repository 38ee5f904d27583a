#include "k8s/resource.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/bounded_json.h"
#include "rapidjson/document.h"

namespace tidepool::k8s {
namespace {

absl::Status CheckSegment(absl::string_view what, absl::string_view value) {
  if (value.empty() || value == "." || value == ".." || absl::StrContains(value, '/') ||
      absl::StrContains(value, '%')) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " \"", value, "\" cannot be used in a resource path"));
  }
  return absl::OkStatus();
}

std::string Str(const rapidjson::Value& object, const char* key) {
  auto it = object.FindMember(key);
  if (it == object.MemberEnd() || !it->value.IsString()) return "";
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

}  // namespace

std::string ResourceType::GroupVersion() const {
  return group.empty() ? version : absl::StrCat(group, "/", version);
}

#define TIDEPOOL_K8S_TYPE(fn, g, v, r, namespaced_)                                 \
  const ResourceType& fn() {                                                        \
    static const ResourceType* const type = new ResourceType{g, v, r, namespaced_}; \
    return *type;                                                                   \
  }
TIDEPOOL_K8S_TYPE(ConfigMaps, "", "v1", "configmaps", true)
TIDEPOOL_K8S_TYPE(Secrets, "", "v1", "secrets", true)
TIDEPOOL_K8S_TYPE(Pods, "", "v1", "pods", true)
TIDEPOOL_K8S_TYPE(Nodes, "", "v1", "nodes", false)
TIDEPOOL_K8S_TYPE(Events, "", "v1", "events", true)
TIDEPOOL_K8S_TYPE(EventsV1, "events.k8s.io", "v1", "events", true)
TIDEPOOL_K8S_TYPE(Namespaces, "", "v1", "namespaces", false)
TIDEPOOL_K8S_TYPE(Deployments, "apps", "v1", "deployments", true)
TIDEPOOL_K8S_TYPE(StatefulSets, "apps", "v1", "statefulsets", true)
TIDEPOOL_K8S_TYPE(Services, "", "v1", "services", true)
TIDEPOOL_K8S_TYPE(PodDisruptionBudgets, "policy", "v1", "poddisruptionbudgets", true)
TIDEPOOL_K8S_TYPE(Leases, "coordination.k8s.io", "v1", "leases", true)
TIDEPOOL_K8S_TYPE(CustomResourceDefinitions, "apiextensions.k8s.io", "v1",
                  "customresourcedefinitions", false)
TIDEPOOL_K8S_TYPE(PersistentVolumes, "", "v1", "persistentvolumes", false)
TIDEPOOL_K8S_TYPE(PersistentVolumeClaims, "", "v1", "persistentvolumeclaims", true)
TIDEPOOL_K8S_TYPE(StorageClasses, "storage.k8s.io", "v1", "storageclasses", false)
#undef TIDEPOOL_K8S_TYPE

absl::StatusOr<std::string> ResourcePath(const ResourceType& type, absl::string_view ns,
                                         absl::string_view name, absl::string_view subresource) {
  if (absl::Status s = CheckSegment("version", type.version); !s.ok()) return s;
  if (absl::Status s = CheckSegment("resource", type.resource); !s.ok()) return s;
  if (!type.group.empty()) {
    if (absl::Status s = CheckSegment("group", type.group); !s.ok()) return s;
  }
  std::string path = type.group.empty() ? absl::StrCat("/api/", type.version)
                                        : absl::StrCat("/apis/", type.group, "/", type.version);
  if (!ns.empty()) {
    if (!type.namespaced) {
      return absl::InvalidArgumentError(absl::StrCat(
          type.resource, " are cluster-scoped: no namespace (\"", ns, "\") may be given"));
    }
    if (absl::Status s = CheckSegment("namespace", ns); !s.ok()) return s;
    absl::StrAppend(&path, "/namespaces/", ns);
  }
  absl::StrAppend(&path, "/", type.resource);
  if (!name.empty()) {
    if (type.namespaced && ns.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(type.resource, " \"", name, "\": a namespaced object needs a namespace"));
    }
    if (absl::Status s = CheckSegment("name", name); !s.ok()) return s;
    absl::StrAppend(&path, "/", name);
  }
  if (!subresource.empty()) {
    if (name.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("subresource \"", subresource, "\" needs an object name"));
    }
    if (absl::Status s = CheckSegment("subresource", subresource); !s.ok()) return s;
    absl::StrAppend(&path, "/", subresource);
  }
  return path;
}

std::string QueryEscape(absl::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size());
  for (unsigned char c : value) {
    if (absl::ascii_isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string QueryString(const std::vector<std::pair<std::string, std::string>>& params) {
  std::string out;
  for (const auto& [key, value] : params) {
    if (value.empty()) continue;
    absl::StrAppend(&out, out.empty() ? "?" : "&", QueryEscape(key), "=", QueryEscape(value));
  }
  return out;
}

ObjectMeta MetaFromValue(const rapidjson::Value& object) {
  ObjectMeta meta;
  if (!object.IsObject()) return meta;
  auto metadata = object.FindMember("metadata");
  if (metadata == object.MemberEnd() || !metadata->value.IsObject()) return meta;
  const rapidjson::Value& m = metadata->value;
  meta.ns = Str(m, "namespace");
  meta.name = Str(m, "name");
  meta.uid = Str(m, "uid");
  meta.resource_version = Str(m, "resourceVersion");
  auto generation = m.FindMember("generation");
  if (generation != m.MemberEnd() && generation->value.IsInt64()) {
    meta.generation = generation->value.GetInt64();
  }
  meta.deleting = m.HasMember("deletionTimestamp") && !m["deletionTimestamp"].IsNull();
  auto labels = m.FindMember("labels");
  if (labels != m.MemberEnd() && labels->value.IsObject()) {
    for (auto it = labels->value.MemberBegin(); it != labels->value.MemberEnd(); ++it) {
      if (it->name.IsString() && it->value.IsString()) {
        meta.labels.emplace(it->name.GetString(), it->value.GetString());
      }
    }
  }
  return meta;
}

absl::StatusOr<ObjectMeta> ParseObjectMeta(absl::string_view json) {
  rapidjson::Document doc;
  common::ParseBoundedJson(doc, json);
  if (doc.HasParseError() || !doc.IsObject()) {
    return absl::InvalidArgumentError("object is not a JSON object");
  }
  auto metadata = doc.FindMember("metadata");
  if (metadata == doc.MemberEnd() || !metadata->value.IsObject()) {
    return absl::InvalidArgumentError("object has no metadata");
  }
  ObjectMeta meta = MetaFromValue(doc);
  if (meta.name.empty()) return absl::InvalidArgumentError("object has no metadata.name");
  return meta;
}

}  // namespace tidepool::k8s

#include "k8s/ownership.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "k8s/object_json.h"
#include "k8s/resource.h"

namespace tidepool::k8s {
namespace {

std::string Group(absl::string_view api_version) {
  const size_t slash = api_version.find('/');
  return slash == absl::string_view::npos ? "" : std::string(api_version.substr(0, slash));
}

// client-go's referSameObject: same group (any version), kind and name.
bool SameObject(const OwnerReference& a, const OwnerReference& b) {
  return Group(a.api_version) == Group(b.api_version) && a.kind == b.kind && a.name == b.name;
}

std::vector<OwnerReference> ReferencesOf(const rapidjson::Value& object) {
  std::vector<OwnerReference> refs;
  const rapidjson::Value* metadata = FindMember(object, "metadata");
  const rapidjson::Value* list = metadata ? FindMember(*metadata, "ownerReferences") : nullptr;
  if (list == nullptr || !list->IsArray()) return refs;
  for (const rapidjson::Value& item : list->GetArray()) {
    refs.push_back({.api_version = StringMember(item, "apiVersion"),
                    .kind = StringMember(item, "kind"),
                    .name = StringMember(item, "name"),
                    .uid = StringMember(item, "uid"),
                    .controller = BoolMember(item, "controller"),
                    .block_owner_deletion = BoolMember(item, "blockOwnerDeletion")});
  }
  return refs;
}

rapidjson::Value ReferenceValue(const OwnerReference& ref,
                                rapidjson::Document::AllocatorType& allocator) {
  rapidjson::Value value(rapidjson::kObjectType);
  SetStringMember(value, "apiVersion", ref.api_version, allocator);
  SetStringMember(value, "kind", ref.kind, allocator);
  SetStringMember(value, "name", ref.name, allocator);
  SetStringMember(value, "uid", ref.uid, allocator);
  if (ref.controller) value.AddMember("controller", true, allocator);
  if (ref.block_owner_deletion) value.AddMember("blockOwnerDeletion", true, allocator);
  return value;
}

std::vector<std::string> FinalizersOf(const rapidjson::Value& object) {
  std::vector<std::string> out;
  const rapidjson::Value* metadata = FindMember(object, "metadata");
  const rapidjson::Value* list = metadata ? FindMember(*metadata, "finalizers") : nullptr;
  if (list == nullptr || !list->IsArray()) return out;
  for (const rapidjson::Value& item : list->GetArray()) {
    if (item.IsString()) out.emplace_back(item.GetString(), item.GetStringLength());
  }
  return out;
}

// {"metadata":{"resourceVersion":…,"finalizers":[…] or null}}
std::string FinalizersPatch(const std::string& resource_version,
                            const std::vector<std::string>& finalizers) {
  rapidjson::Document patch(rapidjson::kObjectType);
  auto& a = patch.GetAllocator();
  rapidjson::Value& metadata = ObjectMember(patch, "metadata", a);
  SetStringMember(metadata, "resourceVersion", resource_version, a);
  rapidjson::Value list(rapidjson::kNullType);  // null removes the field
  if (!finalizers.empty()) {
    list.SetArray();
    for (const std::string& f : finalizers) {
      list.PushBack(rapidjson::Value(f.c_str(), static_cast<rapidjson::SizeType>(f.size()), a), a);
    }
  }
  metadata.AddMember("finalizers", list, a);
  return ToJson(patch);
}

// The object's finalizers and resourceVersion, checked for a conditional patch.
absl::StatusOr<std::pair<std::vector<std::string>, std::string>> FinalizerState(
    absl::string_view object_json, absl::string_view finalizer) {
  if (finalizer.empty()) return absl::InvalidArgumentError("finalizer name is empty");
  absl::StatusOr<rapidjson::Document> doc = ParseJsonObject(object_json, "object");
  if (!doc.ok()) return doc.status();
  const ObjectMeta meta = MetaFromValue(*doc);
  if (meta.resource_version.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("object \"", meta.Key(),
                     "\" has no metadata.resourceVersion to make the patch conditional"));
  }
  return std::make_pair(FinalizersOf(*doc), meta.resource_version);
}

}  // namespace

absl::StatusOr<std::vector<OwnerReference>> OwnerReferences(absl::string_view object_json) {
  absl::StatusOr<rapidjson::Document> doc = ParseJsonObject(object_json, "object");
  if (!doc.ok()) return doc.status();
  return ReferencesOf(*doc);
}

absl::StatusOr<std::optional<OwnerReference>> ControllerOf(absl::string_view object_json) {
  absl::StatusOr<std::vector<OwnerReference>> refs = OwnerReferences(object_json);
  if (!refs.ok()) return refs.status();
  for (OwnerReference& ref : *refs) {
    if (ref.controller) return std::optional<OwnerReference>(std::move(ref));
  }
  return std::optional<OwnerReference>();
}

bool IsControlledBy(absl::string_view object_json, absl::string_view owner_json) {
  absl::StatusOr<ObjectMeta> owner = ParseObjectMeta(owner_json);
  return owner.ok() && IsControlledByUid(object_json, owner->uid);
}

bool IsControlledByUid(absl::string_view object_json, absl::string_view owner_uid) {
  if (owner_uid.empty()) return false;
  absl::StatusOr<std::optional<OwnerReference>> controller = ControllerOf(object_json);
  return controller.ok() && controller->has_value() && (*controller)->uid == owner_uid;
}

absl::StatusOr<std::string> SetControllerReference(absl::string_view owner_json,
                                                   absl::string_view object_json) {
  absl::StatusOr<rapidjson::Document> owner = ParseJsonObject(owner_json, "owner");
  if (!owner.ok()) return owner.status();
  absl::StatusOr<rapidjson::Document> object = ParseJsonObject(object_json, "object");
  if (!object.ok()) return object.status();
  const ObjectMeta owner_meta = MetaFromValue(*owner);
  const ObjectMeta object_meta = MetaFromValue(*object);
  const OwnerReference ref{.api_version = StringMember(*owner, "apiVersion"),
                           .kind = StringMember(*owner, "kind"),
                           .name = owner_meta.name,
                           .uid = owner_meta.uid,
                           .controller = true,
                           .block_owner_deletion = true};
  if (ref.api_version.empty() || ref.kind.empty() || ref.name.empty() || ref.uid.empty()) {
    return absl::InvalidArgumentError(
        "owner needs apiVersion, kind, metadata.name and metadata.uid (a created object)");
  }
  if (!owner_meta.ns.empty() && owner_meta.ns != object_meta.ns) {
    return absl::InvalidArgumentError(absl::StrCat(
        ref.kind, " ", owner_meta.Key(), " cannot own \"", object_meta.Key(), "\"",
        object_meta.ns.empty() ? ": a cluster-scoped object cannot have a namespaced owner"
                               : ": owners must be in the object's namespace"));
  }
  std::vector<OwnerReference> refs = ReferencesOf(*object);
  for (const OwnerReference& existing : refs) {
    if (existing.controller && !SameObject(existing, ref)) {
      return absl::FailedPreconditionError(
          absl::StrCat("\"", object_meta.Key(), "\" is already controlled by ", existing.kind, " ",
                       existing.name, " (uid ", existing.uid, ")"));
    }
  }
  auto same = std::find_if(refs.begin(), refs.end(),
                           [&](const OwnerReference& r) { return SameObject(r, ref); });
  if (same != refs.end()) {
    *same = ref;
  } else {
    refs.push_back(ref);
  }
  auto& a = object->GetAllocator();
  rapidjson::Value list(rapidjson::kArrayType);
  for (const OwnerReference& r : refs) list.PushBack(ReferenceValue(r, a), a);
  SetMember(ObjectMember(*object, "metadata", a), "ownerReferences", std::move(list), a);
  return ToJson(*object);
}

absl::StatusOr<std::vector<std::string>> Finalizers(absl::string_view object_json) {
  absl::StatusOr<rapidjson::Document> doc = ParseJsonObject(object_json, "object");
  if (!doc.ok()) return doc.status();
  return FinalizersOf(*doc);
}

bool HasFinalizer(absl::string_view object_json, absl::string_view finalizer) {
  absl::StatusOr<std::vector<std::string>> finalizers = Finalizers(object_json);
  return finalizers.ok() &&
         std::find(finalizers->begin(), finalizers->end(), finalizer) != finalizers->end();
}

absl::StatusOr<std::optional<std::string>> AddFinalizerPatch(absl::string_view object_json,
                                                             absl::string_view finalizer) {
  auto state = FinalizerState(object_json, finalizer);
  if (!state.ok()) return state.status();
  auto& [finalizers, resource_version] = *state;
  if (std::find(finalizers.begin(), finalizers.end(), finalizer) != finalizers.end()) {
    return std::optional<std::string>();
  }
  finalizers.emplace_back(finalizer);
  return std::optional<std::string>(FinalizersPatch(resource_version, finalizers));
}

absl::StatusOr<std::optional<std::string>> RemoveFinalizerPatch(absl::string_view object_json,
                                                                absl::string_view finalizer) {
  auto state = FinalizerState(object_json, finalizer);
  if (!state.ok()) return state.status();
  auto& [finalizers, resource_version] = *state;
  const auto removed = std::remove(finalizers.begin(), finalizers.end(), finalizer);
  if (removed == finalizers.end()) return std::optional<std::string>();
  finalizers.erase(removed, finalizers.end());
  return std::optional<std::string>(FinalizersPatch(resource_version, finalizers));
}

}  // namespace tidepool::k8s

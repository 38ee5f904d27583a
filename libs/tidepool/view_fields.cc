#include "tidepool/view_fields.h"

#include <algorithm>
#include <utility>

#include "k8s/object_json.h"

namespace tidepool::api {

namespace {

bool Listed(const std::optional<std::vector<std::string>>& list, absl::string_view name) {
  return !list.has_value() || std::find(list->begin(), list->end(), name) != list->end();
}

}  // namespace

ViewKeeps ViewKeeps::Only(std::vector<std::string> annotation_keys,
                          std::vector<std::string> condition_types) {
  return {.annotations = std::move(annotation_keys), .conditions = std::move(condition_types)};
}

bool ViewKeeps::KeepsAnnotation(absl::string_view key) const { return Listed(annotations, key); }

bool ViewKeeps::KeepsCondition(absl::string_view type) const { return Listed(conditions, type); }

std::map<std::string, std::string> StringMap(const rapidjson::Value* object) {
  return StringMap(object, [](absl::string_view) { return true; });
}

std::map<std::string, std::string> StringMap(const rapidjson::Value* object,
                                             absl::FunctionRef<bool(absl::string_view)> kept) {
  std::map<std::string, std::string> out;
  if (object == nullptr || !object->IsObject()) return out;
  for (const auto& member : object->GetObject()) {
    absl::string_view name(member.name.GetString(), member.name.GetStringLength());
    if (member.value.IsString() && kept(name)) {
      out.emplace(std::string(name),
                  std::string(member.value.GetString(), member.value.GetStringLength()));
    }
  }
  return out;
}

std::string ControllerUid(const rapidjson::Value& metadata) {
  const rapidjson::Value* owners = k8s::FindMember(metadata, "ownerReferences");
  if (owners == nullptr || !owners->IsArray()) return "";
  for (const rapidjson::Value& owner : owners->GetArray()) {
    if (k8s::BoolMember(owner, "controller")) return k8s::StringMember(owner, "uid");
  }
  return "";
}

}  // namespace tidepool::api

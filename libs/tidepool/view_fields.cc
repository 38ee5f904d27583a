#include "tidepool/view_fields.h"

#include "k8s/object_json.h"

namespace tidepool::api {

std::map<std::string, std::string> StringMap(const rapidjson::Value* object) {
  std::map<std::string, std::string> out;
  if (object == nullptr || !object->IsObject()) return out;
  for (const auto& member : object->GetObject()) {
    if (member.value.IsString()) {
      out.emplace(std::string(member.name.GetString(), member.name.GetStringLength()),
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

#include "json_edit.h"

#include "k8s/object_json.h"

namespace tidepool::node_agent {

rapidjson::Value JsonString(absl::string_view text, Allocator& allocator) {
  return rapidjson::Value(text.data(), static_cast<rapidjson::SizeType>(text.size()), allocator);
}

rapidjson::Value& ArrayMember(rapidjson::Value& object, const char* key, Allocator& allocator) {
  auto it = object.FindMember(key);
  if (it == object.MemberEnd()) {
    object.AddMember(rapidjson::Value(key, allocator), rapidjson::Value(rapidjson::kArrayType),
                     allocator);
    return object[key];
  }
  if (!it->value.IsArray()) it->value.SetArray();
  return it->value;
}

namespace {

rapidjson::Value* FindCondition(rapidjson::Value& conditions, absl::string_view type) {
  for (rapidjson::Value& condition : conditions.GetArray()) {
    if (k8s::StringMember(condition, "type") == type) return &condition;
  }
  return nullptr;
}

}  // namespace

void SetCondition(rapidjson::Value& conditions, const ConditionUpdate& update, absl::Time now,
                  Allocator& allocator) {
  const std::string status = update.status ? "True" : "False";
  const std::string now_text = FormatApiTime(now);
  rapidjson::Value* condition = FindCondition(conditions, update.type);
  if (condition == nullptr) {
    conditions.PushBack(rapidjson::Value(rapidjson::kObjectType), allocator);
    condition = &conditions[conditions.Size() - 1];
    k8s::SetStringMember(*condition, "type", update.type, allocator);
  }
  const bool changed = k8s::StringMember(*condition, "status") != status ||
                       k8s::StringMember(*condition, "lastTransitionTime").empty();
  k8s::SetStringMember(*condition, "status", status, allocator);
  if (update.heartbeat) {
    k8s::SetStringMember(*condition, "lastHeartbeatTime", now_text, allocator);
  } else {
    k8s::SetMember(*condition, "lastProbeTime", rapidjson::Value(rapidjson::kNullType), allocator);
  }
  if (changed) k8s::SetStringMember(*condition, "lastTransitionTime", now_text, allocator);
  k8s::SetStringMember(*condition, "reason", update.reason, allocator);
  k8s::SetStringMember(*condition, "message", update.message, allocator);
}

std::string ConditionStatus(const rapidjson::Value* conditions, absl::string_view type) {
  if (conditions == nullptr || !conditions->IsArray()) return "";
  for (const rapidjson::Value& condition : conditions->GetArray()) {
    if (k8s::StringMember(condition, "type") == type) {
      return k8s::StringMember(condition, "status");
    }
  }
  return "";
}

}  // namespace tidepool::node_agent

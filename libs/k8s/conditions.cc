#include "k8s/conditions.h"

#include "k8s/object_json.h"

namespace tidepool::k8s {

std::map<std::string, Condition> ReadConditions(const rapidjson::Value& object) {
  return ReadConditions(object, [](absl::string_view) { return true; });
}

std::map<std::string, Condition> ReadConditions(
    const rapidjson::Value& object, absl::FunctionRef<bool(absl::string_view type)> detailed) {
  std::map<std::string, Condition> out;
  const rapidjson::Value* status = FindMember(object, "status");
  const rapidjson::Value* list = status != nullptr ? FindMember(*status, "conditions") : nullptr;
  if (list == nullptr || !list->IsArray()) return out;
  for (const rapidjson::Value& c : list->GetArray()) {
    Condition condition{.type = StringMember(c, "type"), .status = StringMember(c, "status")};
    if (detailed(condition.type)) {
      condition.reason = StringMember(c, "reason");
      condition.message = StringMember(c, "message");
      condition.last_transition_time = StringMember(c, "lastTransitionTime");
      condition.observed_generation = IntMember(c, "observedGeneration");
    }
    std::string type = condition.type;
    out[std::move(type)] = std::move(condition);
  }
  return out;
}

std::string TransitionTime(const std::map<std::string, Condition>& current, const Condition& next,
                           absl::Time now) {
  auto it = current.find(next.type);
  if (it != current.end() && it->second.status == next.status &&
      !it->second.last_transition_time.empty()) {
    return it->second.last_transition_time;
  }
  return FormatApiTime(now);
}

bool ConditionUnchanged(const std::map<std::string, Condition>& current, const Condition& next) {
  auto it = current.find(next.type);
  return it != current.end() && it->second.status == next.status &&
         it->second.reason == next.reason && it->second.message == next.message &&
         it->second.observed_generation == next.observed_generation;
}

}  // namespace tidepool::k8s

#include "k8s/conditions.h"

#include "k8s/object_json.h"

namespace tidepool::k8s {

namespace {

const rapidjson::Value* ConditionList(const rapidjson::Value& object) {
  const rapidjson::Value* status = FindMember(object, "status");
  const rapidjson::Value* list = status != nullptr ? FindMember(*status, "conditions") : nullptr;
  return list != nullptr && list->IsArray() ? list : nullptr;
}

}  // namespace

std::map<std::string, Condition> ReadConditions(const rapidjson::Value& object) {
  return ReadConditions(object, [](absl::string_view) { return true; });
}

std::map<std::string, Condition> ReadConditions(
    const rapidjson::Value& object, absl::FunctionRef<bool(absl::string_view type)> detailed) {
  return ReadConditions(
      object, [](absl::string_view) { return true; }, detailed);
}

std::map<std::string, Condition> ReadConditions(
    const rapidjson::Value& object, absl::FunctionRef<bool(absl::string_view type)> kept,
    absl::FunctionRef<bool(absl::string_view type)> detailed) {
  std::map<std::string, Condition> out;
  const rapidjson::Value* list = ConditionList(object);
  if (list == nullptr) return out;
  for (const rapidjson::Value& c : list->GetArray()) {
    // Compared in place: a condition that is not kept costs no allocation.
    const absl::string_view type = StringViewMember(c, "type");
    if (type.empty() || !kept(type)) continue;  // a condition without a type is none
    Condition condition{.type = std::string(type), .status = StringMember(c, "status")};
    if (detailed(type)) {
      condition.reason = StringMember(c, "reason");
      condition.message = StringMember(c, "message");
      condition.last_transition_time = StringMember(c, "lastTransitionTime");
      condition.observed_generation = IntMember(c, "observedGeneration");
    }
    out.insert_or_assign(condition.type, std::move(condition));
  }
  return out;
}

std::string ReadConditionStatus(const rapidjson::Value& object, absl::string_view type) {
  return ReadFirstConditionStatus(object, {type});
}

std::string ReadFirstConditionStatus(const rapidjson::Value& object,
                                     std::initializer_list<absl::string_view> types) {
  const rapidjson::Value* list = ConditionList(object);
  if (list == nullptr) return "";
  // The rank in `types` of the best condition seen so far, and its status.
  size_t best = types.size();
  absl::string_view status;
  for (const rapidjson::Value& c : list->GetArray()) {
    const absl::string_view type = StringViewMember(c, "type");
    if (type.empty()) continue;
    for (size_t rank = 0; rank < best; ++rank) {
      if (type == types.begin()[rank]) {
        best = rank;
        status = StringViewMember(c, "status");
        break;
      }
    }
  }
  return std::string(status);
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

std::string ConditionsApplyBody(absl::string_view kind, absl::string_view ns,
                                absl::string_view name, const std::vector<Condition>& conditions) {
  return JsonObject([&](JsonWriter& w) {
    WriteStringMember(w, "apiVersion", "v1");
    WriteStringMember(w, "kind", kind);
    w.Key("metadata");
    w.StartObject();
    WriteStringMember(w, "name", name);
    if (!ns.empty()) WriteStringMember(w, "namespace", ns);
    w.EndObject();
    w.Key("status");
    w.StartObject();
    w.Key("conditions");
    w.StartArray();
    for (const Condition& c : conditions) {
      w.StartObject();
      WriteStringMember(w, "type", c.type);
      WriteStringMember(w, "status", c.status);
      WriteStringMember(w, "reason", c.reason);
      WriteStringMember(w, "message", c.message);
      WriteStringMember(w, "lastTransitionTime", c.last_transition_time);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  });
}

}  // namespace tidepool::k8s

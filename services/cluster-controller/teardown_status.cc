#include "teardown_status.h"

#include "absl/strings/str_cat.h"
#include "k8s/object_json.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "tidepool/contract.h"

namespace tidepool::cluster {

k8s::Condition TerminatingCondition(absl::string_view waiting_for, int64_t generation) {
  return {.type = api::kReadyCondition,
          .status = "False",
          .reason = api::kTerminatingReason,
          .message = absl::StrCat("the cluster is being deleted; waiting for ", waiting_for),
          .observed_generation = generation};
}

std::string TeardownStatusPatch(const ClusterStatusView& current, const k8s::Condition& ready,
                                absl::Time now) {
  if (k8s::ConditionUnchanged(current.conditions, ready)) return "";
  rapidjson::StringBuffer buffer;
  k8s::JsonWriter w(buffer);
  auto write = [&w](const k8s::Condition& c, const std::string& transition) {
    w.StartObject();
    k8s::WriteStringMember(w, "type", c.type);
    k8s::WriteStringMember(w, "status", c.status);
    k8s::WriteStringMember(w, "reason", c.reason);
    k8s::WriteStringMember(w, "message", c.message);
    k8s::WriteStringMember(w, "lastTransitionTime", transition);
    w.Key("observedGeneration");
    w.Int64(c.observed_generation);
    w.EndObject();
  };
  w.StartObject();
  w.Key("status");
  w.StartObject();
  w.Key("conditions");
  w.StartArray();
  // A merge patch replaces the whole list: the others are written back as they are.
  for (const auto& [type, condition] : current.conditions) {
    if (type != api::kReadyCondition) write(condition, condition.last_transition_time);
  }
  write(ready, k8s::TransitionTime(current.conditions, ready, now));
  w.EndArray();
  w.EndObject();
  w.EndObject();
  return buffer.GetString();
}

}  // namespace tidepool::cluster

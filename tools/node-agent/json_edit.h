#pragma once

// JSON editing the node and pod builders share: string values and status conditions
// updated in place the way kubelet updates them.

#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "k8s/object_json.h"
#include "rapidjson/document.h"

namespace tidepool::node_agent {

using Allocator = rapidjson::Document::AllocatorType;

rapidjson::Value JsonString(absl::string_view text, Allocator& allocator);

// object[key] as an array, created (or replaced, when not an array) as needed.
rapidjson::Value& ArrayMember(rapidjson::Value& object, const char* key, Allocator& allocator);

struct ConditionUpdate {
  std::string type;
  bool status = true;
  std::string reason;
  std::string message;
  // Node conditions carry lastHeartbeatTime (set to `now` on every update); pod
  // conditions carry lastProbeTime (null).
  bool heartbeat = false;
};

// Sets the condition of `update.type` in `conditions` (added when missing). Its
// lastTransitionTime becomes `now` only when its status changes; conditions of other
// types are untouched.
void SetCondition(rapidjson::Value& conditions, const ConditionUpdate& update, absl::Time now,
                  Allocator& allocator);

// The status ("True"/"False"/…) of the condition of `type`, empty when absent.
std::string ConditionStatus(const rapidjson::Value* conditions, absl::string_view type);

// metav1.Time as the API writes it: RFC 3339, whole seconds, UTC.
using k8s::FormatApiTime;

}  // namespace tidepool::node_agent

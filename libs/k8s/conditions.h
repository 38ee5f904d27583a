#pragma once

// Status conditions as the API conventions define them (metav1.Condition and the core
// types' conditions): read from an object, and the lastTransitionTime rule — it moves
// only when the status changes.

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "rapidjson/document.h"

namespace tidepool::k8s {

struct Condition {
  std::string type;
  std::string status;  // "True" | "False" | "Unknown"
  std::string reason;
  std::string message;
  std::string last_transition_time;
  int64_t observed_generation = 0;
};

// status.conditions of `object`, by type (empty when there are none).
std::map<std::string, Condition> ReadConditions(const rapidjson::Value& object);
// The same, but only conditions whose type `detailed` accepts keep their reason, message,
// lastTransitionTime and observedGeneration; the others have type and status only. For
// caches of thousands of objects whose readers look at the details of the conditions they
// write and at the status of the rest.
std::map<std::string, Condition> ReadConditions(
    const rapidjson::Value& object, absl::FunctionRef<bool(absl::string_view type)> detailed);
// The same of the conditions whose type `kept` accepts only: the others are not read at all,
// for a cache whose readers look at a few of an object's conditions.
std::map<std::string, Condition> ReadConditions(
    const rapidjson::Value& object, absl::FunctionRef<bool(absl::string_view type)> kept,
    absl::FunctionRef<bool(absl::string_view type)> detailed);
// The status of the condition `type` in `object`'s status.conditions, or "" without one.
std::string ReadConditionStatus(const rapidjson::Value& object, absl::string_view type);
// The status of the first of `types` that `object` has a condition of, or "" with none of
// them: one pass over the conditions, which are not copied.
std::string ReadFirstConditionStatus(const rapidjson::Value& object,
                                     std::initializer_list<absl::string_view> types);

// The lastTransitionTime for `next`: the current one when the status is unchanged,
// else `now` (RFC 3339, seconds).
std::string TransitionTime(const std::map<std::string, Condition>& current, const Condition& next,
                           absl::Time now);

// True when `current` already has `next`'s status, reason, message and generation.
bool ConditionUnchanged(const std::map<std::string, Condition>& current, const Condition& next);

// A server-side apply body for the status subresource of core/v1 `kind` `name` (`ns` empty
// for a cluster-scoped object) that sets `conditions` (type, status, reason, message,
// lastTransitionTime; the API server merges them by type with the others):
// {"apiVersion":"v1","kind":…,"metadata":{…},"status":{"conditions":[…]}}.
std::string ConditionsApplyBody(absl::string_view kind, absl::string_view ns,
                                absl::string_view name, const std::vector<Condition>& conditions);

}  // namespace tidepool::k8s

#include "tidepool/gate_hold.h"

#include "k8s/object_json.h"
#include "k8s/resource.h"
#include "tidepool/contract.h"

namespace tidepool::api {

bool GateFalse(const std::map<std::string, k8s::Condition>& conditions) {
  auto gate = conditions.find(kSlurmNodeInUseCondition);
  return gate != conditions.end() && gate->second.status == "False";
}

std::string GateHoldApplyBody(const std::string& ns, const std::string& name,
                              const GateHoldCause& cause, absl::Time now) {
  return k8s::ConditionsApplyBody("Pod", ns, name,
                                  {{.type = kSlurmNodeInUseCondition,
                                    .status = "True",
                                    .reason = cause.reason,
                                    .message = cause.message,
                                    .last_transition_time = k8s::FormatApiTime(now)}});
}

absl::StatusOr<bool> HoldGate(k8s::Client& client, const std::string& ns, const std::string& name,
                              const std::map<std::string, k8s::Condition>& conditions,
                              const GateHoldCause& cause, const std::string& field_manager,
                              absl::Time now) {
  if (!GateFalse(conditions)) return false;
  absl::StatusOr<std::string> applied =
      client.Apply(k8s::Pods(), ns, name, GateHoldApplyBody(ns, name, cause, now),
                   {.field_manager = field_manager, .force = true}, "status");
  if (absl::IsNotFound(applied.status())) return false;
  if (!applied.ok()) return applied.status();
  return true;
}

}  // namespace tidepool::api

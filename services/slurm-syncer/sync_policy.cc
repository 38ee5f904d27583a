#include "sync_policy.h"

#include <array>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "k8s/object_json.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "tidepool/contract.h"
#include "tidepool/naming.h"

namespace tidepool::syncer {
namespace {

using k8s::JsonWriter;
using slurm::rest::Node;
using slurm::rest::NodeState;

constexpr std::array<absl::string_view, 4> kSyncCausePrefixes = {
    api::kPodNotReadyDrainReason, api::kPodTerminatingDrainReason, api::kCordonDrainReasonPrefix,
    api::kNodeConditionDrainReasonPrefix};

struct DesiredCondition {
  std::string type;
  bool status = false;
  std::string reason;
  std::string message;

  k8s::Condition AsCondition() const {
    return {
        .type = type, .status = status ? "True" : "False", .reason = reason, .message = message};
  }
};

bool SameCondition(const std::map<std::string, ConditionView>& current,
                   const DesiredCondition& want) {
  return k8s::ConditionUnchanged(current, want.AsCondition());
}

// The apply body of `conditions`, each with its transition time from `current`.
std::string ConditionsApplyBody(absl::string_view kind, absl::string_view ns,
                                absl::string_view name,
                                const std::map<std::string, ConditionView>& current,
                                const std::vector<DesiredCondition>& conditions, absl::Time now) {
  std::vector<k8s::Condition> timed;
  for (const DesiredCondition& c : conditions) {
    k8s::Condition condition = c.AsCondition();
    condition.last_transition_time = k8s::TransitionTime(current, condition, now);
    timed.push_back(std::move(condition));
  }
  return k8s::ConditionsApplyBody(kind, ns, name, timed);
}

// {"metadata":{"annotations":{key: value-or-null, …}}}
std::string AnnotationPatch(const std::vector<std::pair<std::string, std::string>>& values) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("metadata");
  w.StartObject();
  w.Key("annotations");
  w.StartObject();
  for (const auto& [key, value] : values) {
    w.Key(key.c_str());
    if (value.empty()) {
      w.Null();
    } else {
      w.String(value.c_str());
    }
  }
  w.EndObject();
  w.EndObject();
  w.EndObject();
  return buffer.GetString();
}

bool AnnotationsSay(const std::map<std::string, std::string>& current,
                    const std::vector<std::pair<std::string, std::string>>& want) {
  for (const auto& [key, value] : want) {
    auto it = current.find(key);
    const std::string have = it != current.end() ? it->second : "";
    if (have != value) return false;
  }
  return true;
}

std::string SlurmStateReason(const Node& slurm) {
  if (slurm.state.Has(NodeState::kDown)) return "Down";
  if (slurm.state.Has(NodeState::kNotResponding)) return "NotResponding";
  if (slurm.state.Has(NodeState::kDrain)) return Busy(slurm) ? "Draining" : "Drained";
  if (slurm.state.Has(NodeState::kAllocated)) return "Allocated";
  if (slurm.state.Has(NodeState::kMixed)) return "Mixed";
  if (slurm.state.Has(NodeState::kIdle)) return "Idle";
  return "Other";
}

std::string StateMessage(const Node& slurm) {
  std::string message = slurm.state.ToString();
  if (!slurm.reason.empty()) absl::StrAppend(&message, ": ", slurm.reason);
  return message;
}

}  // namespace

bool SlurmNodeInUse(const Node& slurm) {
  return Busy(slurm) || !(slurm.state.Has(NodeState::kDrain) || slurm.state.Has(NodeState::kDown));
}

bool IsSyncCause(absl::string_view reason) {
  for (absl::string_view prefix : kSyncCausePrefixes) {
    if (absl::StartsWith(reason, prefix)) return true;
  }
  return false;
}

std::optional<std::string> DesiredDrainReason(const PodObservation& pod,
                                              const NodeObservation* node,
                                              const std::vector<std::string>& drain_conditions) {
  if (pod.terminating) return std::string(api::kPodTerminatingDrainReason);
  if (node != nullptr && node->unschedulable) {
    return absl::StrCat(api::kCordonDrainReasonPrefix, ": ",
                        node->cordon_reason.empty() ? "cordoned" : node->cordon_reason);
  }
  if (node != nullptr) {
    for (const std::string& type : drain_conditions) {
      auto it = node->conditions.find(type);
      if (it != node->conditions.end() && it->second.status == "True") {
        return absl::StrCat(api::kNodeConditionDrainReasonPrefix, type);
      }
    }
  }
  if (!pod.ready) return std::string(api::kPodNotReadyDrainReason);
  return std::nullopt;
}

std::optional<DrainRequest> PlanSlurmUpdate(const std::optional<std::string>& desired,
                                            const Node& slurm) {
  const bool drained = slurm.state.Has(NodeState::kDrain);
  if (desired.has_value()) {
    if (drained && slurm.reason == *desired) return std::nullopt;
    // Held by someone else's drain already, or a reason (Slurm's DOWN) not to overwrite.
    if (drained && !IsSyncCause(slurm.reason)) return std::nullopt;
    if (ReasonActive(slurm) && !slurm.reason.empty() && !IsOwnedReason(slurm.reason)) {
      return std::nullopt;  // DOWN or FAIL with Slurm's or a person's reason
    }
    return DrainRequest{
        .node = slurm.name, .action = DrainRequest::Action::kDrain, .reason = *desired};
  }
  if (drained && IsSyncCause(slurm.reason)) {
    return DrainRequest{
        .node = slurm.name, .action = DrainRequest::Action::kUndrain, .if_reason = slurm.reason};
  }
  return std::nullopt;
}

std::optional<std::string> PodAnnotationPatch(const PodObservation& pod, const Node& slurm) {
  const std::vector<std::pair<std::string, std::string>> want = {
      {api::kSlurmStateAnnotation, slurm.state.ToString()},
      {api::kSlurmReasonAnnotation, ReasonActive(slurm) ? slurm.reason : ""}};
  if (AnnotationsSay(pod.annotations, want)) return std::nullopt;
  return AnnotationPatch(want);
}

namespace {

// The pod's readiness gate (SlurmNodeInUse decides), with why.
DesiredCondition InUseCondition(const Node& slurm) {
  if (SlurmNodeInUse(slurm)) {
    return Busy(slurm)
               ? DesiredCondition{api::kSlurmNodeInUseCondition, true, "JobsRunning",
                                  "jobs run on the Slurm node: the pod is not evicted until "
                                  "they end"}
               : DesiredCondition{api::kSlurmNodeInUseCondition, true, "AcceptingJobs",
                                  "Slurm may start jobs here: drain the Slurm node (a cordon "
                                  "does) before evicting"};
  }
  if (slurm.state.Has(NodeState::kDrain)) {
    return {api::kSlurmNodeInUseCondition, false, "DrainedIdle",
            absl::StrCat("drained and idle (", slurm.reason, "): no job runs here and Slurm ",
                         "starts none, the pod may be evicted")};
  }
  return {api::kSlurmNodeInUseCondition, false, "DownIdle",
          "down and idle: no job runs here and Slurm starts none, the pod may be evicted"};
}

bool AllSame(const std::map<std::string, ConditionView>& current,
             const std::vector<DesiredCondition>& want) {
  for (const DesiredCondition& c : want) {
    if (!SameCondition(current, c)) return false;
  }
  return true;
}

}  // namespace

std::optional<std::string> PodConditionApply(const PodObservation& pod, const Node& slurm,
                                             absl::Time now) {
  const std::string reason = SlurmStateReason(slurm);
  const bool ready = reason == "Idle" || reason == "Allocated" || reason == "Mixed";
  const std::vector<DesiredCondition> conditions = {
      {api::kSlurmNodeReadyCondition, ready, reason, StateMessage(slurm)}, InUseCondition(slurm)};
  if (AllSame(pod.conditions, conditions)) return std::nullopt;
  return ConditionsApplyBody("Pod", pod.ns, pod.name, pod.conditions, conditions, now);
}

std::optional<std::string> NodeConditionsApply(const NodeObservation& node, const Node& slurm,
                                               absl::Time now) {
  const bool drain = slurm.state.Has(NodeState::kDrain);
  const bool by_person = drain && !IsOwnedReason(slurm.reason);
  const bool not_responding = slurm.state.Has(NodeState::kNotResponding);
  std::string by = slurm.reason_set_by_user.empty()
                       ? ""
                       : absl::StrCat(" (set by ", slurm.reason_set_by_user, ")");
  const std::vector<DesiredCondition> conditions = {
      {api::kSlurmDrainCondition, drain, drain ? SlurmStateReason(slurm) : "NotDrained",
       drain ? slurm.reason + by : ""},
      {api::kSlurmCordonCondition, by_person, by_person ? "DrainedInSlurm" : "NotDrainedInSlurm",
       by_person ? slurm.reason + by : ""},
      {api::kSlurmNotRespondingCondition, not_responding,
       not_responding ? "NotResponding" : "Responding", not_responding ? StateMessage(slurm) : ""},
  };
  if (AllSame(node.conditions, conditions)) return std::nullopt;
  return ConditionsApplyBody("Node", "", node.name, node.conditions, conditions, now);
}

std::optional<std::string> NodeAnnotationPatch(const NodeObservation& node, const Node& slurm) {
  const std::string reason = slurm.state.Has(NodeState::kDrain) ? slurm.reason : "";
  const std::vector<std::pair<std::string, std::string>> want = {{api::kDrainAnnotation, reason}};
  if (AnnotationsSay(node.annotations, want)) return std::nullopt;
  return AnnotationPatch(want);
}

bool ShownInKubernetes(ConditionWrite pod, std::optional<ConditionWrite> node) {
  return pod != ConditionWrite::kGone || (node.has_value() && *node != ConditionWrite::kGone);
}

}  // namespace tidepool::syncer

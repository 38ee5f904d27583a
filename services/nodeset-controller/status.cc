#include "status.h"

#include <algorithm>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "builders.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "k8s/object_json.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "tidepool/contract.h"

namespace tidepool::nodeset {
namespace {

using tidepool::v1::Condition;
using tidepool::v1::NodeSetStatus;

struct PodCounts {
  int current = 0;
  int updated = 0;
  int ready = 0;
  int drain = 0;
  int misscheduled = 0;
  int slurm_idle = 0;
  int slurm_allocated = 0;
  int slurm_down = 0;
};

void CountSlurm(const ObservedPod& pod, const SlurmView& slurm, PodCounts& counts) {
  const tidepool::v1::SlurmNode* node = slurm.Find(pod.name);
  if (node == nullptr) return;
  if (node->drain()) ++counts.drain;
  if (node->down()) {
    ++counts.slurm_down;
  } else if (node->idle()) {
    ++counts.slurm_idle;
  } else {
    ++counts.slurm_allocated;
  }
}

PodCounts CountPods(const PlanInput& observed) {
  std::set<std::string> feasible;
  for (const FeasibleNode& node : observed.feasible) feasible.insert(node.name);
  PodCounts counts;
  for (const ObservedPod& pod : observed.pods) {
    if (pod.deleting) continue;  // on its way out: neither current nor misplaced
    CountSlurm(pod, *observed.slurm, counts);
    if (!feasible.contains(pod.node_name)) {
      ++counts.misscheduled;
      continue;
    }
    ++counts.current;
    if (pod.template_hash == observed.template_hash) ++counts.updated;
    if (pod.ready) ++counts.ready;
  }
  return counts;
}

Condition MakeCondition(const StatusInputs& inputs, const char* type, bool value,
                        std::string reason, std::string message) {
  Condition condition;
  condition.set_type(type);
  condition.set_status(value ? "True" : "False");
  condition.set_reason(std::move(reason));
  condition.set_message(std::move(message));
  condition.set_observed_generation(inputs.generation);
  condition.set_last_transition_time(k8s::FormatApiTime(inputs.now));
  if (inputs.previous == nullptr) return condition;
  for (const Condition& before : inputs.previous->conditions()) {
    if (before.type() == type && before.status() == condition.status()) {
      condition.set_last_transition_time(before.last_transition_time());
    }
  }
  return condition;
}

int CountSteps(const Plan& plan, DeletionStep step) {
  return static_cast<int>(std::count_if(plan.deletions.begin(), plan.deletions.end(),
                                        [step](const PodDeletion& d) { return d.step == step; }));
}

std::string ProgressMessage(const Plan& plan) {
  std::vector<std::string> parts;
  if (const size_t creates = plan.creates.size() + plan.creates_deferred; creates > 0) {
    parts.push_back(absl::StrCat(creates, " to create"));
  }
  if (!plan.deletions.empty()) {
    parts.push_back(absl::StrCat(plan.deletions.size(), " to delete (",
                                 CountSteps(plan, DeletionStep::kWaitForJobs),
                                 " waiting for jobs)"));
  }
  if (plan.outdated > 0) parts.push_back(absl::StrCat(plan.outdated, " outdated"));
  if (plan.awaiting_replacement > 0) {
    parts.push_back(absl::StrCat(plan.awaiting_replacement, " being replaced"));
  }
  if (!plan.undrains.empty()) parts.push_back(absl::StrCat(plan.undrains.size(), " to undrain"));
  return absl::StrCat("pods: ", absl::StrJoin(parts, ", "));
}

Condition ProgressingCondition(const StatusInputs& inputs) {
  const Plan& plan = *inputs.plan;
  if (!inputs.pod_error.empty()) {
    return MakeCondition(
        inputs, api::kProgressingCondition, false,
        inputs.pod_error_reason.empty() ? "PodTemplateInvalid" : inputs.pod_error_reason,
        inputs.pod_error);
  }
  if (plan.Settled()) {
    return MakeCondition(inputs, api::kProgressingCondition, false, "Reconciled",
                         absl::StrCat(plan.desired, " pods current"));
  }
  std::string reason = "Reconciling";
  if (CountSteps(plan, DeletionStep::kBlocked) > 0) {
    reason = api::kDeletionBlockedReason;
  } else if (CountSteps(plan, DeletionStep::kWaitForJobs) > 0) {
    reason = api::kWaitingForJobsReason;
  } else if (!plan.creates.empty() || plan.creates_deferred > 0) {
    reason = "CreatingPods";
  } else if (!plan.deletions.empty()) {
    reason = "DeletingPods";
  } else if (plan.outdated > 0) {
    reason = "RollingUpdate";
  }
  return MakeCondition(inputs, api::kProgressingCondition, true, reason, ProgressMessage(plan));
}

Condition AvailableCondition(const StatusInputs& inputs, int unavailable) {
  if (unavailable == 0) {
    return MakeCondition(
        inputs, api::kAvailableCondition, true, "AllPodsReady",
        absl::StrCat(inputs.plan->desired, " of ", inputs.plan->desired, " desired pods ready"));
  }
  return MakeCondition(
      inputs, api::kAvailableCondition, false, "PodsUnavailable",
      absl::StrCat(unavailable, " of ", inputs.plan->desired, " desired pods not ready"));
}

Condition SlurmCondition(const StatusInputs& inputs) {
  const SlurmView& slurm = *inputs.observed->slurm;
  if (slurm.reachable) {
    return MakeCondition(inputs, api::kSlurmUnreachableCondition, false, "SyncerConnected",
                         "Slurm node state is current");
  }
  return MakeCondition(
      inputs, api::kSlurmUnreachableCondition, true, "SyncerUnavailable",
      absl::StrCat(slurm.unreachable_reason, "; no pod is deleted until Slurm can be seen"));
}

void WriteInt(rapidjson::Writer<rapidjson::StringBuffer>& out, const char* key, int64_t value) {
  out.Key(key);
  out.Int64(value);
}

void WriteConditions(rapidjson::Writer<rapidjson::StringBuffer>& out, const NodeSetStatus& status) {
  out.Key("conditions");
  out.StartArray();
  for (const Condition& condition : status.conditions()) {
    out.StartObject();
    k8s::WriteStringMember(out, "type", condition.type());
    k8s::WriteStringMember(out, "status", condition.status());
    k8s::WriteStringMember(out, "reason", condition.reason());
    k8s::WriteStringMember(out, "message", condition.message());
    WriteInt(out, "observedGeneration", condition.observed_generation());
    k8s::WriteStringMember(out, "lastTransitionTime", condition.last_transition_time());
    out.EndObject();
  }
  out.EndArray();
}

}  // namespace

NodeSetStatus ComputeStatus(const StatusInputs& inputs) {
  const PodCounts counts = CountPods(*inputs.observed);
  const int desired = inputs.plan->desired;
  const int unavailable = std::max(0, desired - counts.ready);
  NodeSetStatus status;
  status.set_observed_generation(inputs.generation);
  status.set_desired_number_scheduled(desired);
  status.set_number_feasible(static_cast<int>(inputs.observed->feasible.size()));
  status.set_current_number_scheduled(counts.current);
  status.set_updated_number_scheduled(counts.updated);
  status.set_number_ready(counts.ready);
  status.set_number_drain(counts.drain);
  status.set_number_misscheduled(counts.misscheduled);
  status.set_number_unavailable(unavailable);
  status.set_slurm_idle(counts.slurm_idle);
  status.set_slurm_allocated(counts.slurm_allocated);
  status.set_slurm_down(counts.slurm_down);
  status.set_selector(PodSelector(inputs.node_set_name));
  *status.add_conditions() = AvailableCondition(inputs, unavailable);
  *status.add_conditions() = ProgressingCondition(inputs);
  *status.add_conditions() = SlurmCondition(inputs);
  return status;
}

absl::StatusOr<NodeSetStatus> ParseStatus(absl::string_view node_set_json) {
  absl::StatusOr<rapidjson::Document> object = k8s::ParseJsonObject(node_set_json, "NodeSet");
  if (!object.ok()) return object.status();
  NodeSetStatus status;
  const rapidjson::Value* value = k8s::FindMember(*object, "status");
  if (value == nullptr || !value->IsObject()) return status;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  const auto parsed =
      google::protobuf::util::JsonStringToMessage(k8s::ToJson(*value), &status, options);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("status: ", std::string(parsed.message())));
  }
  return status;
}

std::string StatusPatch(const NodeSetStatus& status) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> out(buffer);
  out.StartObject();
  out.Key("status");
  out.StartObject();
  WriteInt(out, "observedGeneration", status.observed_generation());
  WriteInt(out, "desiredNumberScheduled", status.desired_number_scheduled());
  WriteInt(out, "numberFeasible", status.number_feasible());
  WriteInt(out, "currentNumberScheduled", status.current_number_scheduled());
  WriteInt(out, "updatedNumberScheduled", status.updated_number_scheduled());
  WriteInt(out, "numberReady", status.number_ready());
  WriteInt(out, "numberDrain", status.number_drain());
  WriteInt(out, "numberMisscheduled", status.number_misscheduled());
  WriteInt(out, "numberUnavailable", status.number_unavailable());
  WriteInt(out, "slurmIdle", status.slurm_idle());
  WriteInt(out, "slurmAllocated", status.slurm_allocated());
  WriteInt(out, "slurmDown", status.slurm_down());
  k8s::WriteStringMember(out, "selector", status.selector());
  WriteConditions(out, status);
  out.EndObject();
  out.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

bool SameStatus(const NodeSetStatus& a, const NodeSetStatus& b) {
  return google::protobuf::util::MessageDifferencer::Equals(a, b);
}

}  // namespace tidepool::nodeset

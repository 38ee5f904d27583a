#include "pod_status.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "json_edit.h"
#include "k8s/object_json.h"
#include "tidepool/naming.h"

namespace tidepool::node_agent {
namespace {

using k8s::FindMember;
using k8s::IntMember;
using k8s::StringMember;

Labels StringMap(const rapidjson::Value* object) {
  Labels map;
  if (object == nullptr || !object->IsObject()) return map;
  for (const auto& member : object->GetObject()) {
    if (member.value.IsString()) map[member.name.GetString()] = member.value.GetString();
  }
  return map;
}

std::string AnnotationOf(const PodFacts& pod, const char* key) {
  auto found = pod.annotations.find(key);
  return found == pod.annotations.end() ? "" : found->second;
}

struct ContainerSpec {
  std::string name;
  std::string image;
};

std::vector<ContainerSpec> ContainersOf(const rapidjson::Value& pod, const char* list) {
  std::vector<ContainerSpec> containers;
  const rapidjson::Value* spec = FindMember(pod, "spec");
  const rapidjson::Value* items = spec ? FindMember(*spec, list) : nullptr;
  if (items == nullptr || !items->IsArray()) return containers;
  for (const rapidjson::Value& item : items->GetArray()) {
    containers.push_back({StringMember(item, "name"), StringMember(item, "image")});
  }
  return containers;
}

// The previous status of container `name` in `statuses`, or null.
const rapidjson::Value* PreviousStatus(const rapidjson::Value* statuses, const std::string& name) {
  if (statuses == nullptr || !statuses->IsArray()) return nullptr;
  for (const rapidjson::Value& status : statuses->GetArray()) {
    if (StringMember(status, "name") == name) return &status;
  }
  return nullptr;
}

// When the container started running: kept from its previous status unless it restarted.
std::string RunningSince(const rapidjson::Value* previous, int restart_count, absl::Time now) {
  if (previous != nullptr && IntMember(*previous, "restartCount") == restart_count) {
    const rapidjson::Value* state = FindMember(*previous, "state");
    const rapidjson::Value* running = state ? FindMember(*state, "running") : nullptr;
    if (running != nullptr) {
      std::string since = StringMember(*running, "startedAt");
      if (!since.empty()) return since;
    }
  }
  return FormatApiTime(now);
}

rapidjson::Value ContainerState(const DesiredPodStatus& desired, const rapidjson::Value* previous,
                                absl::Time now, Allocator& allocator) {
  rapidjson::Value state(rapidjson::kObjectType);
  rapidjson::Value detail(rapidjson::kObjectType);
  if (desired.workload.running) {
    k8s::SetStringMember(detail, "startedAt",
                         RunningSince(previous, desired.workload.restart_count, now), allocator);
    state.AddMember("running", detail, allocator);
  } else {
    k8s::SetStringMember(detail, "reason", desired.workload.waiting_reason, allocator);
    if (!desired.workload.waiting_message.empty()) {
      k8s::SetStringMember(detail, "message", desired.workload.waiting_message, allocator);
    }
    state.AddMember("waiting", detail, allocator);
  }
  return state;
}

rapidjson::Value ContainerStatuses(const std::vector<ContainerSpec>& containers,
                                   const rapidjson::Value* previous_statuses,
                                   const DesiredPodStatus& desired, const std::string& uid,
                                   absl::Time now, Allocator& allocator) {
  rapidjson::Value statuses(rapidjson::kArrayType);
  for (const ContainerSpec& container : containers) {
    const rapidjson::Value* previous = PreviousStatus(previous_statuses, container.name);
    rapidjson::Value status(rapidjson::kObjectType);
    k8s::SetStringMember(status, "name", container.name, allocator);
    k8s::SetStringMember(status, "image", container.image, allocator);
    k8s::SetStringMember(status, "imageID", "", allocator);
    if (desired.workload.running) {
      k8s::SetStringMember(status, "containerID",
                           absl::StrCat("tidepool-agent://", uid, "/", container.name), allocator);
    }
    status.AddMember("ready", desired.ready, allocator);
    status.AddMember("started", desired.workload.running, allocator);
    status.AddMember("restartCount", desired.workload.restart_count, allocator);
    status.AddMember("state", ContainerState(desired, previous, now, allocator), allocator);
    statuses.PushBack(status, allocator);
  }
  return statuses;
}

// Init containers ran to completion before the pod started (the agent runs none).
rapidjson::Value InitContainerStatuses(const std::vector<ContainerSpec>& containers,
                                       const rapidjson::Value* previous_statuses, absl::Time now,
                                       Allocator& allocator) {
  rapidjson::Value statuses(rapidjson::kArrayType);
  for (const ContainerSpec& container : containers) {
    if (const rapidjson::Value* previous = PreviousStatus(previous_statuses, container.name)) {
      statuses.PushBack(rapidjson::Value(*previous, allocator), allocator);
      continue;
    }
    rapidjson::Value status(rapidjson::kObjectType);
    k8s::SetStringMember(status, "name", container.name, allocator);
    k8s::SetStringMember(status, "image", container.image, allocator);
    k8s::SetStringMember(status, "imageID", "", allocator);
    status.AddMember("ready", true, allocator);
    status.AddMember("restartCount", 0, allocator);
    rapidjson::Value terminated(rapidjson::kObjectType);
    terminated.AddMember("exitCode", 0, allocator);
    k8s::SetStringMember(terminated, "reason", "Completed", allocator);
    k8s::SetStringMember(terminated, "startedAt", FormatApiTime(now), allocator);
    k8s::SetStringMember(terminated, "finishedAt", FormatApiTime(now), allocator);
    rapidjson::Value state(rapidjson::kObjectType);
    state.AddMember("terminated", terminated, allocator);
    status.AddMember("state", state, allocator);
    statuses.PushBack(status, allocator);
  }
  return statuses;
}

std::string NotReadyMessage(const std::vector<ContainerSpec>& containers) {
  std::vector<std::string> names;
  for (const ContainerSpec& container : containers) names.push_back(container.name);
  return absl::StrCat("containers with unready status: [", absl::StrJoin(names, " "), "]");
}

void SetPodConditions(rapidjson::Value& status, const DesiredPodStatus& desired,
                      const std::vector<ContainerSpec>& containers, absl::Time now,
                      Allocator& allocator) {
  rapidjson::Value& conditions = ArrayMember(status, "conditions", allocator);
  const std::string reason = desired.ready ? "" : "ContainersNotReady";
  const std::string message = desired.ready ? "" : NotReadyMessage(containers);
  for (const ConditionUpdate& update : std::vector<ConditionUpdate>{
           {"PodReadyToStartContainers", true, "", ""},
           {"Initialized", true, "", ""},
           {"ContainersReady", desired.ready, reason, message},
           {api::kReadyCondition, desired.ready, reason, message},
           {"PodScheduled", true, "", ""},
       }) {
    SetCondition(conditions, update, now, allocator);
  }
}

void SetIps(rapidjson::Value& status, const DesiredPodStatus& desired, Allocator& allocator) {
  auto ip_list = [&allocator](const std::string& ip) {
    rapidjson::Value list(rapidjson::kArrayType);
    rapidjson::Value entry(rapidjson::kObjectType);
    k8s::SetStringMember(entry, "ip", ip, allocator);
    list.PushBack(entry, allocator);
    return list;
  };
  if (!desired.host_ip.empty()) {
    k8s::SetStringMember(status, "hostIP", desired.host_ip, allocator);
    k8s::SetMember(status, "hostIPs", ip_list(desired.host_ip), allocator);
  }
  // A pod keeps its IP for its lifetime.
  if (StringMember(status, "podIP").empty() && !desired.pod_ip.empty()) {
    k8s::SetStringMember(status, "podIP", desired.pod_ip, allocator);
    k8s::SetMember(status, "podIPs", ip_list(desired.pod_ip), allocator);
  }
}

// The parts of a status that matter to readers, to tell whether a write changes anything
// (the server's JSON and ours differ in member order and in fields it fills in).
std::string StatusDigest(const rapidjson::Value& status) {
  std::string digest =
      absl::StrCat(StringMember(status, "phase"), "|", StringMember(status, "podIP"), "|",
                   StringMember(status, "hostIP"), "|",
                   StringMember(status, "startTime").empty() ? "" : "started");
  const rapidjson::Value* conditions = FindMember(status, "conditions");
  for (const char* type :
       {"PodReadyToStartContainers", "Initialized", "ContainersReady", "Ready", "PodScheduled"}) {
    absl::StrAppend(&digest, "|", type, "=", ConditionStatus(conditions, type));
  }
  for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
    const rapidjson::Value* statuses = FindMember(status, list);
    if (statuses == nullptr || !statuses->IsArray()) continue;
    for (const rapidjson::Value& container : statuses->GetArray()) {
      const rapidjson::Value* state = FindMember(container, "state");
      std::string state_kind = state && state->IsObject() && state->MemberCount() > 0
                                   ? state->MemberBegin()->name.GetString()
                                   : "";
      absl::StrAppend(&digest, "|", StringMember(container, "name"), ":",
                      k8s::BoolMember(container, "ready"), k8s::BoolMember(container, "started"),
                      ":", k8s::IntMember(container, "restartCount"), ":", state_kind);
    }
  }
  return digest;
}

}  // namespace

absl::StatusOr<PodFacts> ParsePodFacts(absl::string_view pod_json) {
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(pod_json, "Pod");
  if (!doc.ok()) return doc.status();
  PodFacts pod;
  if (const rapidjson::Value* metadata = FindMember(*doc, "metadata")) {
    pod.ns = StringMember(*metadata, "namespace");
    pod.name = StringMember(*metadata, "name");
    pod.uid = StringMember(*metadata, "uid");
    pod.deleting = !StringMember(*metadata, "deletionTimestamp").empty();
    pod.labels = StringMap(FindMember(*metadata, "labels"));
    pod.annotations = StringMap(FindMember(*metadata, "annotations"));
  }
  if (const rapidjson::Value* spec = FindMember(*doc, "spec")) {
    pod.node_name = StringMember(*spec, "nodeName");
  }
  if (const rapidjson::Value* status = FindMember(*doc, "status")) {
    pod.phase = StringMember(*status, "phase");
    pod.pod_ip = StringMember(*status, "podIP");
  }
  if (pod.name.empty()) return absl::InvalidArgumentError("Pod has no metadata.name");
  return pod;
}

bool IsSlurmdPod(const PodFacts& pod) {
  auto component = pod.labels.find(api::kComponentLabel);
  return component != pod.labels.end() && component->second == api::kSlurmdComponent;
}

std::string SlurmNodeOf(const PodFacts& pod) {
  auto node = pod.labels.find(api::kSlurmNodeLabel);
  return node != pod.labels.end() && !node->second.empty() ? node->second : pod.name;
}

bool HeldNotReady(const PodFacts& pod) {
  return AnnotationOf(pod, kAgentReadyAnnotation) == "false";
}

bool SlurmdHeldStopped(const PodFacts& pod) {
  return AnnotationOf(pod, kAgentSlurmdAnnotation) == "stopped";
}

absl::StatusOr<std::optional<std::string>> PodStatusUpdate(absl::string_view pod_json,
                                                           const DesiredPodStatus& desired,
                                                           absl::Time now) {
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(pod_json, "Pod");
  if (!doc.ok()) return doc.status();
  Allocator& allocator = doc->GetAllocator();
  rapidjson::Value& status = k8s::ObjectMember(*doc, "status", allocator);
  const std::string before = StatusDigest(status);
  const std::string uid = StringMember(k8s::ObjectMember(*doc, "metadata", allocator), "uid");
  const std::vector<ContainerSpec> containers = ContainersOf(*doc, "containers");
  const std::vector<ContainerSpec> init_containers = ContainersOf(*doc, "initContainers");

  // Running once its containers ran: a container that stops later leaves it Running.
  const bool ran = desired.workload.running || StringMember(status, "phase") == "Running";
  k8s::SetStringMember(status, "phase", ran ? "Running" : "Pending", allocator);
  SetPodConditions(status, desired, containers, now, allocator);
  SetIps(status, desired, allocator);
  if (StringMember(status, "startTime").empty()) {
    k8s::SetStringMember(status, "startTime", FormatApiTime(now), allocator);
  }
  if (!init_containers.empty()) {
    rapidjson::Value statuses = InitContainerStatuses(
        init_containers, FindMember(status, "initContainerStatuses"), now, allocator);
    k8s::SetMember(status, "initContainerStatuses", std::move(statuses), allocator);
  }
  rapidjson::Value statuses = ContainerStatuses(containers, FindMember(status, "containerStatuses"),
                                                desired, uid, now, allocator);
  k8s::SetMember(status, "containerStatuses", std::move(statuses), allocator);
  if (StatusDigest(status) == before) return std::nullopt;
  return k8s::ToJson(*doc);
}

}  // namespace tidepool::node_agent

#include "node_objects.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "json_edit.h"
#include "k8s/object_json.h"

namespace tidepool::node_agent {
namespace {

constexpr char kGpuResource[] = "nvidia.com/gpu";

rapidjson::Value LabelsValue(const Labels& labels, Allocator& allocator) {
  rapidjson::Value object(rapidjson::kObjectType);
  for (const auto& [key, value] : labels) {
    object.AddMember(JsonString(key, allocator), JsonString(value, allocator), allocator);
  }
  return object;
}

rapidjson::Value TaintValue(const Taint& taint, Allocator& allocator) {
  rapidjson::Value object(rapidjson::kObjectType);
  k8s::SetStringMember(object, "key", taint.key, allocator);
  if (!taint.value.empty()) k8s::SetStringMember(object, "value", taint.value, allocator);
  k8s::SetStringMember(object, "effect", taint.effect, allocator);
  return object;
}

// Taints the API server (TaintNodesByCondition) puts on a new Node until the node
// lifecycle controller sees it Ready; the test environment runs no such controller.
bool IsNotReadyTaint(const rapidjson::Value& taint) {
  const std::string key = k8s::StringMember(taint, "key");
  return key == "node.kubernetes.io/not-ready" || key == "node.kubernetes.io/unreachable";
}

bool IsReady(const rapidjson::Value& node) {
  const rapidjson::Value* status = k8s::FindMember(node, "status");
  return status != nullptr &&
         ConditionStatus(k8s::FindMember(*status, "conditions"), api::kReadyCondition) == "True";
}

// Removes the not-ready taints from `taints`; true when there were any.
bool DropNotReadyTaints(rapidjson::Value& taints) {
  bool dropped = false;
  for (auto it = taints.Begin(); it != taints.End();) {
    if (IsNotReadyTaint(*it)) {
      it = taints.Erase(it);
      dropped = true;
    } else {
      ++it;
    }
  }
  return dropped;
}

bool HasTaint(const rapidjson::Value& taints, const Taint& taint) {
  for (const rapidjson::Value& existing : taints.GetArray()) {
    if (k8s::StringMember(existing, "key") == taint.key &&
        k8s::StringMember(existing, "effect") == taint.effect) {
      return true;
    }
  }
  return false;
}

rapidjson::Value ResourcesValue(const NodeTemplate& node_template, Allocator& allocator) {
  rapidjson::Value resources(rapidjson::kObjectType);
  k8s::SetStringMember(resources, "cpu", node_template.cpu, allocator);
  k8s::SetStringMember(resources, "memory", node_template.memory, allocator);
  k8s::SetStringMember(resources, "pods", node_template.pods, allocator);
  k8s::SetStringMember(resources, "ephemeral-storage", "100Gi", allocator);
  if (node_template.gpu_count > 0) {
    k8s::SetStringMember(resources, kGpuResource, absl::StrCat(node_template.gpu_count), allocator);
  }
  return resources;
}

rapidjson::Value AddressesValue(const SimNode& node, Allocator& allocator) {
  rapidjson::Value addresses(rapidjson::kArrayType);
  for (const auto& [type, address] : std::vector<std::pair<const char*, std::string>>{
           {"InternalIP", node.address}, {"Hostname", node.name}}) {
    rapidjson::Value entry(rapidjson::kObjectType);
    k8s::SetStringMember(entry, "type", type, allocator);
    k8s::SetStringMember(entry, "address", address, allocator);
    addresses.PushBack(entry, allocator);
  }
  return addresses;
}

rapidjson::Value NodeInfoValue(const SimNode& node, Allocator& allocator) {
  rapidjson::Value info(rapidjson::kObjectType);
  const std::string id = absl::StrCat("tidepool-sim-", node.name);
  for (const auto& [key, value] : std::vector<std::pair<const char*, std::string>>{
           {"machineID", id},
           {"systemUUID", id},
           {"bootID", id},
           {"kernelVersion", "simulated"},
           {"osImage", "Tidepool node agent (simulated)"},
           {"containerRuntimeVersion", "tidepool-node-agent://0.1.0"},
           {"kubeletVersion", "v1.37.2"},
           {"kubeProxyVersion", ""},
           {"operatingSystem", "linux"},
           {"architecture", "amd64"}}) {
    k8s::SetStringMember(info, key, value, allocator);
  }
  return info;
}

void SetNodeConditions(rapidjson::Value& status, absl::Time now, Allocator& allocator) {
  rapidjson::Value& conditions = ArrayMember(status, "conditions", allocator);
  const std::vector<ConditionUpdate> updates = {
      {"MemoryPressure", false, "KubeletHasSufficientMemory",
       "kubelet has sufficient memory available", true},
      {"DiskPressure", false, "KubeletHasNoDiskPressure", "kubelet has no disk pressure", true},
      {"PIDPressure", false, "KubeletHasSufficientPID", "kubelet has sufficient PID available",
       true},
      {api::kReadyCondition, true, "KubeletReady", "tidepool node agent is posting ready status",
       true},
  };
  for (const ConditionUpdate& update : updates) SetCondition(conditions, update, now, allocator);
}

}  // namespace

Labels AgentNodeLabels(const SimNode& node) {
  Labels labels = {{"kubernetes.io/hostname", node.name},
                   {"kubernetes.io/os", "linux"},
                   {"kubernetes.io/arch", "amd64"},
                   {kAgentSimulatedNodeLabel, "true"}};
  for (const auto& [key, value] : node.labels) labels[key] = value;
  return labels;
}

std::string NewNodeJson(const SimNode& node, const NodeTemplate& node_template) {
  rapidjson::Document doc(rapidjson::kObjectType);
  Allocator& allocator = doc.GetAllocator();
  k8s::SetStringMember(doc, "apiVersion", "v1", allocator);
  k8s::SetStringMember(doc, "kind", "Node", allocator);
  rapidjson::Value& metadata = k8s::ObjectMember(doc, "metadata", allocator);
  k8s::SetStringMember(metadata, "name", node.name, allocator);
  metadata.AddMember("labels", LabelsValue(AgentNodeLabels(node), allocator), allocator);
  rapidjson::Value& spec = k8s::ObjectMember(doc, "spec", allocator);
  if (!node_template.taints.empty()) {
    rapidjson::Value& taints = ArrayMember(spec, "taints", allocator);
    for (const Taint& taint : node_template.taints) {
      taints.PushBack(TaintValue(taint, allocator), allocator);
    }
  }
  return k8s::ToJson(doc);
}

absl::StatusOr<std::optional<std::string>> NodeWithAgentSpec(absl::string_view existing,
                                                             const SimNode& node,
                                                             const NodeTemplate& node_template) {
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(existing, "Node");
  if (!doc.ok()) return doc.status();
  Allocator& allocator = doc->GetAllocator();
  bool changed = false;
  rapidjson::Value& labels =
      k8s::ObjectMember(k8s::ObjectMember(*doc, "metadata", allocator), "labels", allocator);
  for (const auto& [key, value] : AgentNodeLabels(node)) {
    if (k8s::FindMember(labels, key.c_str()) != nullptr &&
        k8s::StringMember(labels, key.c_str()) == value) {
      continue;
    }
    k8s::SetStringMember(labels, key.c_str(), value, allocator);
    changed = true;
  }
  rapidjson::Value& taints =
      ArrayMember(k8s::ObjectMember(*doc, "spec", allocator), "taints", allocator);
  for (const Taint& taint : node_template.taints) {
    if (HasTaint(taints, taint)) continue;
    taints.PushBack(TaintValue(taint, allocator), allocator);
    changed = true;
  }
  if (IsReady(*doc) && DropNotReadyTaints(taints)) changed = true;
  if (!changed) return std::nullopt;
  return k8s::ToJson(*doc);
}

absl::StatusOr<std::string> NodeWithReadyStatus(absl::string_view existing, const SimNode& node,
                                                const NodeTemplate& node_template, absl::Time now) {
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(existing, "Node");
  if (!doc.ok()) return doc.status();
  Allocator& allocator = doc->GetAllocator();
  rapidjson::Value& status = k8s::ObjectMember(*doc, "status", allocator);
  k8s::SetMember(status, "capacity", ResourcesValue(node_template, allocator), allocator);
  k8s::SetMember(status, "allocatable", ResourcesValue(node_template, allocator), allocator);
  SetNodeConditions(status, now, allocator);
  k8s::SetMember(status, "addresses", AddressesValue(node, allocator), allocator);
  rapidjson::Value& endpoints = k8s::ObjectMember(status, "daemonEndpoints", allocator);
  rapidjson::Value port(rapidjson::kObjectType);
  port.AddMember("Port", 10250, allocator);
  k8s::SetMember(endpoints, "kubeletEndpoint", std::move(port), allocator);
  k8s::SetMember(status, "nodeInfo", NodeInfoValue(node, allocator), allocator);
  return k8s::ToJson(*doc);
}

std::string NewNodeLeaseJson(const std::string& node_name, const std::string& node_uid,
                             absl::Time now) {
  rapidjson::Document doc(rapidjson::kObjectType);
  Allocator& allocator = doc.GetAllocator();
  k8s::SetStringMember(doc, "apiVersion", "coordination.k8s.io/v1", allocator);
  k8s::SetStringMember(doc, "kind", "Lease", allocator);
  rapidjson::Value& metadata = k8s::ObjectMember(doc, "metadata", allocator);
  k8s::SetStringMember(metadata, "name", node_name, allocator);
  k8s::SetStringMember(metadata, "namespace", kNodeLeaseNamespace, allocator);
  // As kubelet does: the Lease goes when its Node goes (where a garbage collector runs).
  rapidjson::Value owner(rapidjson::kObjectType);
  k8s::SetStringMember(owner, "apiVersion", "v1", allocator);
  k8s::SetStringMember(owner, "kind", "Node", allocator);
  k8s::SetStringMember(owner, "name", node_name, allocator);
  k8s::SetStringMember(owner, "uid", node_uid, allocator);
  ArrayMember(metadata, "ownerReferences", allocator).PushBack(owner, allocator);
  rapidjson::Value& spec = k8s::ObjectMember(doc, "spec", allocator);
  k8s::SetStringMember(spec, "holderIdentity", node_name, allocator);
  spec.AddMember("leaseDurationSeconds", kNodeLeaseDurationSeconds, allocator);
  k8s::SetStringMember(spec, "renewTime", k8s::FormatMicroTime(now), allocator);
  return k8s::ToJson(doc);
}

std::string LeaseRenewPatch(absl::Time now) {
  return absl::StrCat(R"({"spec":{"renewTime":")", k8s::FormatMicroTime(now), R"("}})");
}

}  // namespace tidepool::node_agent

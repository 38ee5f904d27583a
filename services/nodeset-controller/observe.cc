#include "observe.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "builders.h"
#include "google/protobuf/util/json_util.h"
#include "k8s/object_json.h"
#include "tidepool/membership.h"
#include "tidepool/naming.h"

namespace tidepool::nodeset {
namespace {

bool ConditionTrue(const rapidjson::Value& pod, const char* type) {
  const rapidjson::Value* status = k8s::FindMember(pod, "status");
  const rapidjson::Value* conditions = status ? k8s::FindMember(*status, "conditions") : nullptr;
  if (conditions == nullptr || !conditions->IsArray()) return false;
  for (const rapidjson::Value& condition : conditions->GetArray()) {
    if (k8s::StringMember(condition, "type") == type) {
      return k8s::StringMember(condition, "status") == "True";
    }
  }
  return false;
}

std::string Annotation(const rapidjson::Value& metadata, const char* key) {
  const rapidjson::Value* annotations = k8s::FindMember(metadata, "annotations");
  return annotations ? k8s::StringMember(*annotations, key) : "";
}

}  // namespace

absl::StatusOr<ObservedPod> ObservePod(absl::string_view pod_json) {
  absl::StatusOr<rapidjson::Document> pod = k8s::ParseJsonObject(pod_json, "Pod");
  if (!pod.ok()) return pod.status();
  const rapidjson::Value* metadata = k8s::FindMember(*pod, "metadata");
  if (metadata == nullptr) return absl::InvalidArgumentError("Pod has no metadata");
  const rapidjson::Value* spec = k8s::FindMember(*pod, "spec");
  ObservedPod observed;
  observed.name = k8s::StringMember(*metadata, "name");
  observed.uid = k8s::StringMember(*metadata, "uid");
  observed.node_name = spec ? k8s::StringMember(*spec, "nodeName") : "";
  observed.template_hash = Annotation(*metadata, kTemplateHashAnnotation);
  observed.ready = ConditionTrue(*pod, "Ready");
  observed.deleting = !k8s::StringMember(*metadata, "deletionTimestamp").empty();
  return observed;
}

const char* DaemonTolerations() {
  return R"([{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute"},)"
         R"({"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute"},)"
         R"({"key":"node.kubernetes.io/unschedulable","operator":"Exists","effect":"NoSchedule"},)"
         R"({"key":"node.kubernetes.io/disk-pressure","operator":"Exists","effect":"NoSchedule"},)"
         R"({"key":"node.kubernetes.io/memory-pressure","operator":"Exists","effect":"NoSchedule"},)"
         R"({"key":"node.kubernetes.io/pid-pressure","operator":"Exists","effect":"NoSchedule"}])";
}

std::vector<FeasibleNode> FeasibleNodesFor(const tidepool::v1::NodeSet& node_set,
                                           std::vector<tidepool::v1::NodeSet> siblings,
                                           std::vector<tidepool::v1::NodeInfo> nodes,
                                           const std::set<std::string>& hosting,
                                           std::vector<std::string>& warnings) {
  static const google::protobuf::ListValue* const daemon = [] {
    auto* parsed = new google::protobuf::ListValue();  // parsed once, kept for the process
    (void)google::protobuf::util::JsonStringToMessage(DaemonTolerations(), parsed);
    return parsed;
  }();
  for (tidepool::v1::NodeSet& sibling : siblings) {
    sibling.mutable_spec()->clear_replicas();
    for (const google::protobuf::Value& toleration : daemon->values()) {
      *sibling.mutable_spec()->mutable_tolerations()->add_values() = toleration;
    }
  }
  for (tidepool::v1::NodeInfo& node : nodes) {
    if (!hosting.contains(node.metadata().name())) continue;
    auto* taints = node.mutable_taints();
    taints->erase(std::remove_if(taints->begin(), taints->end(),
                                 [](const auto& taint) { return taint.effect() == "NoSchedule"; }),
                  taints->end());
  }
  std::vector<FeasibleNode> feasible;
  for (const api::PlannedMember& member : api::PlanMembers(siblings, nodes, warnings)) {
    if (member.node_set != node_set.metadata().name()) continue;
    const auto& labels = member.node->metadata().labels();
    auto label = labels.find(api::kSlurmNodeLabel);
    feasible.push_back({member.node->metadata().name(), member.slurm_node_name,
                        label == labels.end() ? "" : label->second});
  }
  return feasible;
}

std::string MaxUnavailableText(const tidepool::v1::NodeSet& node_set) {
  const auto& strategy = node_set.spec().update_strategy();
  if (!strategy.has_rolling_update() || !strategy.rolling_update().has_max_unavailable()) {
    return "1";
  }
  const google::protobuf::Value& value = strategy.rolling_update().max_unavailable();
  if (value.has_string_value()) return value.string_value();
  if (value.has_number_value()) return absl::StrCat(std::llround(value.number_value()));
  return "1";
}

UpdateStrategyType StrategyOf(const tidepool::v1::NodeSet& node_set) {
  return node_set.spec().update_strategy().type() == "OnDelete"
             ? UpdateStrategyType::kOnDelete
             : UpdateStrategyType::kRollingUpdate;
}

}  // namespace tidepool::nodeset

#include "observe.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "builders.h"
#include "google/protobuf/util/json_util.h"
#include "k8s/ownership.h"
#include "tidepool/membership.h"
#include "tidepool/naming.h"
#include "tidepool/pod_view.h"

namespace tidepool::nodeset {

ObservedPod ObservePod(const api::PodView& pod) {
  return {.name = pod.name,
          .uid = pod.uid,
          .node_name = pod.node_name,
          .template_hash = pod.template_hash,
          .ready = pod.ready,
          .deleting = pod.deleting};
}

absl::StatusOr<ObservedPod> ObservePod(const k8s::CachedObject& pod) {
  if (const api::PodView* view = pod.ViewAs<api::PodView>()) return ObservePod(*view);
  return ObservePod(pod.json);
}

absl::StatusOr<ObservedPod> ObservePod(absl::string_view pod_json) {
  absl::StatusOr<api::PodView> pod = api::ParsePodView(pod_json);
  if (!pod.ok()) return pod.status();
  return ObservePod(*pod);
}

std::optional<ObservedPod> ObserveControlledPod(const k8s::CachedObject& pod,
                                                absl::string_view owner_uid) {
  if (owner_uid.empty()) return std::nullopt;
  const api::PodView* view = pod.ViewAs<api::PodView>();
  const bool controlled = view != nullptr ? view->controller_uid == owner_uid
                                          : k8s::IsControlledByUid(pod.json, owner_uid);
  if (!controlled) return std::nullopt;
  absl::StatusOr<ObservedPod> observed = ObservePod(pod);
  if (!observed.ok()) return std::nullopt;
  return *std::move(observed);
}

const char* DaemonTolerations() {
  return R"([{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute"},)"
         R"({"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute"},)"
         R"({"key":"node.kubernetes.io/unschedulable","operator":"Exists","effect":"NoSchedule"},)"
         R"({"key":"node.kubernetes.io/disk-pressure","operator":"Exists","effect":"NoSchedule"},)"
         R"({"key":"node.kubernetes.io/memory-pressure","operator":"Exists","effect":"NoSchedule"},)"
         R"({"key":"node.kubernetes.io/pid-pressure","operator":"Exists","effect":"NoSchedule"}])";
}

namespace {

bool NoSchedule(const tidepool::v1::Taint& taint) { return taint.effect() == "NoSchedule"; }

// `node` without its NoSchedule taints: itself when it has none, else a copy.
SharedNodeInfo WithoutNoScheduleTaints(SharedNodeInfo node) {
  if (std::none_of(node->taints().begin(), node->taints().end(), NoSchedule)) return node;
  auto copy = std::make_shared<tidepool::v1::NodeInfo>(*node);
  auto* taints = copy->mutable_taints();
  taints->erase(std::remove_if(taints->begin(), taints->end(), NoSchedule), taints->end());
  return copy;
}

}  // namespace

std::vector<FeasibleNode> FeasibleNodesFor(const tidepool::v1::NodeSet& node_set,
                                           std::vector<tidepool::v1::NodeSet> siblings,
                                           std::vector<SharedNodeInfo> nodes,
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
  std::vector<const tidepool::v1::NodeInfo*> planned;
  planned.reserve(nodes.size());
  for (SharedNodeInfo& node : nodes) {
    if (node == nullptr) continue;
    if (hosting.contains(node->metadata().name())) node = WithoutNoScheduleTaints(node);
    planned.push_back(node.get());
  }
  std::vector<FeasibleNode> feasible;
  for (const api::PlannedMember& member :
       api::PlanMembers(siblings, std::move(planned), warnings)) {
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

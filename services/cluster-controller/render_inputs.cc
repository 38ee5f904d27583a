#include "render_inputs.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "k8s/object_json.h"
#include "tidepool/naming.h"
#include "tidepool/resources.h"

namespace tidepool::cluster {
namespace {

struct PodView {
  std::string key;
  std::string slurm_node;
  std::string node_set;
  std::string node_name;
};

absl::StatusOr<PodView> ReadPod(const std::string& json) {
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(json, "pod");
  if (!doc.ok()) return doc.status();
  PodView pod;
  const rapidjson::Value* metadata = k8s::FindMember(*doc, "metadata");
  if (metadata == nullptr) return absl::InvalidArgumentError("pod without metadata");
  pod.key = absl::StrCat(k8s::StringMember(*metadata, "namespace"), "/",
                         k8s::StringMember(*metadata, "name"));
  const rapidjson::Value* labels = k8s::FindMember(*metadata, "labels");
  if (labels != nullptr) {
    pod.slurm_node = k8s::StringMember(*labels, api::kSlurmNodeLabel);
    pod.node_set = k8s::StringMember(*labels, api::kNodeSetLabel);
  }
  if (pod.slurm_node.empty()) pod.slurm_node = k8s::StringMember(*metadata, "name");
  if (const rapidjson::Value* spec = k8s::FindMember(*doc, "spec"); spec != nullptr) {
    pod.node_name = k8s::StringMember(*spec, "nodeName");
  }
  return pod;
}

void AddNodeSets(const ClusterObjects& objects, RenderInputs& inputs) {
  const v1::SlurmCluster& cluster = inputs.request.cluster();
  for (const std::string& json : objects.node_set_jsons) {
    absl::StatusOr<v1::NodeSet> node_set = api::ParseNodeSet(json);
    if (!node_set.ok()) {
      inputs.skipped.push_back(std::string(node_set.status().message()));
      continue;
    }
    if (node_set->metadata().namespace_() != cluster.metadata().namespace_() ||
        node_set->spec().cluster_ref().name() != cluster.metadata().name()) {
      continue;
    }
    *inputs.request.add_node_sets() = *std::move(node_set);
  }
  std::sort(inputs.request.mutable_node_sets()->begin(), inputs.request.mutable_node_sets()->end(),
            [](const v1::NodeSet& a, const v1::NodeSet& b) {
              return a.metadata().name() < b.metadata().name();
            });
}

void AddMember(const ClusterObjects& objects, const PodView& pod,
               const std::set<std::string>& node_sets, RenderInputs& inputs) {
  if (!node_sets.contains(pod.node_set)) {
    inputs.skipped.push_back(
        absl::StrCat(pod.key, ": NodeSet \"", pod.node_set, "\" is not one of the cluster's"));
    return;
  }
  if (pod.node_name.empty()) {
    inputs.skipped.push_back(absl::StrCat(pod.key, ": not bound to a Node yet"));
    return;
  }
  const std::string node_json = objects.node_json(pod.node_name);
  absl::StatusOr<v1::NodeInfo> node =
      node_json.empty() ? absl::NotFoundError("not in the cache") : api::ParseNode(node_json);
  if (!node.ok()) {
    inputs.skipped.push_back(
        absl::StrCat(pod.key, ": Node ", pod.node_name, ": ", node.status().message()));
    return;
  }
  v1::MemberNode* member = inputs.request.add_members();
  member->set_slurm_node_name(pod.slurm_node);
  member->set_node_set(pod.node_set);
  *member->mutable_node() = *std::move(node);
}

}  // namespace

absl::StatusOr<RenderInputs> BuildRenderInputs(const ClusterObjects& objects,
                                               const v1::RenderEnvironment& environment) {
  absl::StatusOr<v1::SlurmCluster> cluster = api::ParseSlurmCluster(objects.cluster_json);
  if (!cluster.ok()) return cluster.status();
  RenderInputs inputs;
  *inputs.request.mutable_cluster() = *std::move(cluster);
  *inputs.request.mutable_environment() = environment;
  AddNodeSets(objects, inputs);
  std::set<std::string> node_sets;
  for (const v1::NodeSet& node_set : inputs.request.node_sets()) {
    node_sets.insert(node_set.metadata().name());
  }
  std::vector<PodView> pods;
  for (const std::string& json : objects.pod_jsons) {
    absl::StatusOr<PodView> pod = ReadPod(json);
    if (pod.ok()) pods.push_back(*std::move(pod));
  }
  std::sort(pods.begin(), pods.end(),
            [](const PodView& a, const PodView& b) { return a.slurm_node < b.slurm_node; });
  for (const PodView& pod : pods) AddMember(objects, pod, node_sets, inputs);
  return inputs;
}

}  // namespace tidepool::cluster

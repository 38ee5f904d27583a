#include "builders.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cluster_wiring.h"
#include "k8s/object_json.h"
#include "k8s/ownership.h"
#include "observe.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "slurm/conf/content_hash.h"
#include "tidepool/contract.h"
#include "tidepool/naming.h"

namespace tidepool::nodeset {
namespace {

using Allocator = rapidjson::Document::AllocatorType;

// Writes `value` with object keys sorted, so equal JSON hashes equally.
void WriteCanonical(const rapidjson::Value& value,
                    rapidjson::Writer<rapidjson::StringBuffer>& out) {
  if (value.IsObject()) {
    std::vector<const rapidjson::Value::Member*> members;
    for (const auto& member : value.GetObject()) members.push_back(&member);
    std::sort(members.begin(), members.end(), [](const auto* a, const auto* b) {
      return std::string_view(a->name.GetString(), a->name.GetStringLength()) <
             std::string_view(b->name.GetString(), b->name.GetStringLength());
    });
    out.StartObject();
    for (const auto* member : members) {
      out.Key(member->name.GetString(), member->name.GetStringLength());
      WriteCanonical(member->value, out);
    }
    out.EndObject();
  } else if (value.IsArray()) {
    out.StartArray();
    for (const rapidjson::Value& item : value.GetArray()) WriteCanonical(item, out);
    out.EndArray();
  } else {
    value.Accept(out);
  }
}

std::string Canonical(const rapidjson::Value* value) {
  if (value == nullptr) return "null";
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  WriteCanonical(*value, writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

void SetString(rapidjson::Value& object, const char* key, absl::string_view value, Allocator& a) {
  k8s::SetStringMember(object, key, value, a);
}

// metadata: the template's labels and annotations, then ours (ours win).
void BuildMetadata(const rapidjson::Value* template_metadata, const rapidjson::Document& node_set,
                   const PodInputs& inputs, rapidjson::Document& pod) {
  Allocator& a = pod.GetAllocator();
  rapidjson::Value& metadata = k8s::ObjectMember(pod, "metadata", a);
  SetString(metadata, "name", inputs.slurm_name, a);
  const rapidjson::Value* ns_metadata = k8s::FindMember(node_set, "metadata");
  SetString(metadata, "namespace", k8s::StringMember(*ns_metadata, "namespace"), a);
  for (const char* field : {"labels", "annotations"}) {
    const rapidjson::Value* from =
        template_metadata ? k8s::FindMember(*template_metadata, field) : nullptr;
    rapidjson::Value& to = k8s::ObjectMember(metadata, field, a);
    if (from != nullptr && from->IsObject()) to.CopyFrom(*from, a);
  }
  rapidjson::Value& labels = metadata["labels"];
  const rapidjson::Value* spec = k8s::FindMember(node_set, "spec");
  const rapidjson::Value* cluster_ref = k8s::FindMember(*spec, "clusterRef");
  SetString(labels, api::kClusterLabel, cluster_ref ? k8s::StringMember(*cluster_ref, "name") : "",
            a);
  SetString(labels, api::kNodeSetLabel, k8s::StringMember(*ns_metadata, "name"), a);
  SetString(labels, api::kSlurmNodeLabel, inputs.slurm_name, a);
  SetString(labels, api::kComponentLabel, api::kSlurmdComponent, a);
  SetString(metadata["annotations"], api::kTemplateHashAnnotation, inputs.template_hash, a);
  const rapidjson::Value* slurm = k8s::FindMember(*spec, "slurm");
  SetString(metadata["annotations"], api::kSlurmAttributesAnnotation,
            slurm != nullptr && slurm->IsObject() ? Canonical(slurm) : "{}", a);
}

// The container named slurmd in the pod spec, nullptr when none.
rapidjson::Value* SlurmdContainer(rapidjson::Value& spec) {
  auto it = spec.FindMember("containers");
  if (it == spec.MemberEnd() || !it->value.IsArray()) return nullptr;
  for (rapidjson::Value& container : it->value.GetArray()) {
    if (k8s::StringMember(container, "name") == kSlurmdContainer) return &container;
  }
  return nullptr;
}

// The slurmd container: the template's, or a new one when the template has none.
absl::Status BuildSlurmdContainer(const PodInputs& inputs, rapidjson::Value& spec, Allocator& a) {
  rapidjson::Value* containers = nullptr;
  if (auto it = spec.FindMember("containers"); it != spec.MemberEnd() && it->value.IsArray()) {
    containers = &it->value;
  } else {
    k8s::SetMember(spec, "containers", rapidjson::Value(rapidjson::kArrayType), a);
    containers = &spec["containers"];
  }
  rapidjson::Value* slurmd = nullptr;
  for (rapidjson::Value& container : containers->GetArray()) {
    if (k8s::StringMember(container, "name") == kSlurmdContainer) slurmd = &container;
  }
  if (slurmd == nullptr && !containers->Empty()) {
    return absl::InvalidArgumentError(
        "spec.template.spec.containers: no container is named \"slurmd\"");
  }
  if (slurmd == nullptr) {
    rapidjson::Value container(rapidjson::kObjectType);
    SetString(container, "name", kSlurmdContainer, a);
    containers->PushBack(container, a);
    slurmd = &(*containers)[containers->Size() - 1];
  }
  if (k8s::StringMember(*slurmd, "image").empty()) {
    if (inputs.compute_image.empty()) {
      return absl::InvalidArgumentError(
          "spec.template.spec.containers[slurmd].image is empty and the SlurmCluster has no "
          "spec.images.compute");
    }
    SetString(*slurmd, "image", inputs.compute_image, a);
  }
  return MountClusterFiles(*slurmd, a);
}

// What the pod needs from its cluster on a real kubelet; not in the template hash. Called
// after BuildSlurmdContainer, so the slurmd container exists.
absl::Status WireToCluster(const PodInputs& inputs, absl::string_view ns, rapidjson::Value& spec,
                           Allocator& a) {
  const ClusterWiring wiring{.cluster = inputs.cluster_name,
                             .ns = std::string(ns),
                             .munge_key_secret = inputs.munge_key_secret,
                             .cluster_domain = inputs.cluster_domain,
                             .prolog_config_map = inputs.prolog_config_map,
                             .epilog_config_map = inputs.epilog_config_map};
  if (absl::Status s = AddClusterVolumes(wiring, spec, a); !s.ok()) return s;
  if (absl::Status s = AddScripts(wiring, spec, *SlurmdContainer(spec), a); !s.ok()) return s;
  AddComputeDns(wiring, spec, a);
  return absl::OkStatus();
}

void AppendAll(const rapidjson::Value* tolerations, rapidjson::Value& list, Allocator& a) {
  if (tolerations == nullptr || !tolerations->IsArray()) return;
  for (const rapidjson::Value& toleration : tolerations->GetArray()) {
    list.PushBack(rapidjson::Value(toleration, a), a);
  }
}

// The template's tolerations, then the NodeSet's (which made its Nodes feasible), then a
// DaemonSet's (the pod stays with its Node through trouble; Slurm drains it instead).
void AddTolerations(const rapidjson::Value* node_set_spec, rapidjson::Value& spec, Allocator& a) {
  auto it = spec.FindMember("tolerations");
  if (it == spec.MemberEnd() || !it->value.IsArray()) {
    k8s::SetMember(spec, "tolerations", rapidjson::Value(rapidjson::kArrayType), a);
  }
  rapidjson::Value& list = spec["tolerations"];
  AppendAll(k8s::FindMember(*node_set_spec, "tolerations"), list, a);
  rapidjson::Document daemon;
  daemon.Parse(DaemonTolerations());
  AppendAll(&daemon, list, a);
}

// The template's readiness gates and SlurmNodeInUse: the pod is Ready, and so not
// evictable under the cluster's PodDisruptionBudget, while its Slurm node has or may get
// jobs. Not in the template hash: pods made before keep running without it.
void AddInUseReadinessGate(rapidjson::Value& spec, Allocator& a) {
  auto it = spec.FindMember("readinessGates");
  if (it == spec.MemberEnd() || !it->value.IsArray()) {
    k8s::SetMember(spec, "readinessGates", rapidjson::Value(rapidjson::kArrayType), a);
  }
  rapidjson::Value& gates = spec["readinessGates"];
  for (const rapidjson::Value& gate : gates.GetArray()) {
    if (k8s::StringMember(gate, "conditionType") == api::kSlurmNodeInUseCondition) return;
  }
  rapidjson::Value gate(rapidjson::kObjectType);
  SetString(gate, "conditionType", api::kSlurmNodeInUseCondition, a);
  gates.PushBack(gate, a);
}

}  // namespace

absl::StatusOr<std::string> TemplateHash(absl::string_view node_set_json) {
  absl::StatusOr<rapidjson::Document> node_set = k8s::ParseJsonObject(node_set_json, "NodeSet");
  if (!node_set.ok()) return node_set.status();
  const rapidjson::Value* spec = k8s::FindMember(*node_set, "spec");
  const rapidjson::Value* template_value = spec ? k8s::FindMember(*spec, "template") : nullptr;
  const rapidjson::Value* slurm = spec ? k8s::FindMember(*spec, "slurm") : nullptr;
  return slurm::ContentHash({{"template", Canonical(template_value)}, {"slurm", Canonical(slurm)}});
}

std::string PodSelector(absl::string_view node_set_name) {
  return absl::StrCat(api::kNodeSetLabel, "=", node_set_name);
}

absl::StatusOr<std::string> BuildPod(const PodInputs& inputs) {
  absl::StatusOr<rapidjson::Document> node_set =
      k8s::ParseJsonObject(inputs.node_set_json, "NodeSet");
  if (!node_set.ok()) return node_set.status();
  const rapidjson::Value* ns_spec = k8s::FindMember(*node_set, "spec");
  if (ns_spec == nullptr || k8s::FindMember(*node_set, "metadata") == nullptr) {
    return absl::InvalidArgumentError("NodeSet has no spec or metadata");
  }
  const rapidjson::Value* pod_template = k8s::FindMember(*ns_spec, "template");
  rapidjson::Document pod(rapidjson::kObjectType);
  Allocator& a = pod.GetAllocator();
  SetString(pod, "apiVersion", "v1", a);
  SetString(pod, "kind", "Pod", a);
  BuildMetadata(pod_template ? k8s::FindMember(*pod_template, "metadata") : nullptr, *node_set,
                inputs, pod);
  rapidjson::Value& spec = k8s::ObjectMember(pod, "spec", a);
  if (const rapidjson::Value* template_spec =
          pod_template ? k8s::FindMember(*pod_template, "spec") : nullptr;
      template_spec != nullptr && template_spec->IsObject()) {
    spec.CopyFrom(*template_spec, a);
  }
  SetString(spec, "nodeName", inputs.node_name, a);
  SetString(spec, "hostname", inputs.slurm_name, a);
  if (absl::Status s = BuildSlurmdContainer(inputs, spec, a); !s.ok()) return s;
  if (absl::Status s =
          WireToCluster(inputs, k8s::StringMember(pod["metadata"], "namespace"), spec, a);
      !s.ok()) {
    return s;
  }
  AddTolerations(ns_spec, spec, a);
  AddInUseReadinessGate(spec, a);
  return k8s::SetControllerReference(inputs.node_set_json, k8s::ToJson(pod));
}

std::string SlurmNodeLabelPatch(absl::string_view slurm_name) {
  rapidjson::Document patch(rapidjson::kObjectType);
  Allocator& a = patch.GetAllocator();
  rapidjson::Value& labels =
      k8s::ObjectMember(k8s::ObjectMember(patch, "metadata", a), "labels", a);
  SetString(labels, api::kSlurmNodeLabel, slurm_name, a);
  return k8s::ToJson(patch);
}

}  // namespace tidepool::nodeset

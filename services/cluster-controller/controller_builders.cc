#include "controller_builders.h"

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "k8s/object_json.h"
#include "k8s/quantity.h"
#include "manifest_writing.h"
#include "owned_metadata.h"
#include "rapidjson/stringbuffer.h"
#include "tidepool/contract.h"
#include "tidepool/naming.h"
#include "workload_names.h"

namespace tidepool::cluster {
namespace {

using k8s::JsonWriter;

const std::string& ClusterName(const v1::SlurmCluster& cluster) {
  return cluster.metadata().name();
}

void WriteMounts(JsonWriter& w) {
  w.Key("volumeMounts");
  w.StartArray();
  for (const auto& [name, path, read_only] : {std::tuple{"config", kSlurmConfigMountPath, true},
                                              std::tuple{"munge-key", kMungeKeyMountPath, true},
                                              std::tuple{"jwt-key", kJwtKeyMountPath, true},
                                              std::tuple{"state", kStateSaveMountPath, false},
                                              std::tuple{"users", kUsersMountPath, true}}) {
    w.StartObject();
    k8s::WriteStringMember(w, "name", name);
    k8s::WriteStringMember(w, "mountPath", path);
    w.Key("readOnly");
    w.Bool(read_only);
    w.EndObject();
  }
  w.EndArray();
}

void WriteVolumes(JsonWriter& w, const ControllerInputs& inputs) {
  const std::string& cluster = ClusterName(*inputs.cluster);
  w.Key("volumes");
  w.StartArray();
  WriteConfigVolume(w, *inputs.cluster);
  WriteSecretVolume(w, "munge-key", inputs.munge_key_secret);
  WriteSecretVolume(w, "jwt-key", inputs.jwt_key_secret);
  w.StartObject();
  k8s::WriteStringMember(w, "name", "state");
  w.Key("persistentVolumeClaim");
  w.StartObject();
  k8s::WriteStringMember(w, "claimName", api::ControllerStateClaimName(cluster));
  w.EndObject();
  w.EndObject();
  // slurmctld refuses a job whose uid it cannot resolve: a login user's included.
  WriteUsersVolume(w, *inputs.cluster);
  w.EndArray();
}

// spec.controller.resources as given (a Kubernetes ResourceRequirements).
void WriteResources(JsonWriter& w, const v1::SlurmCluster& cluster) {
  if (!cluster.spec().controller().has_resources()) return;
  std::string json;
  if (!google::protobuf::util::MessageToJsonString(cluster.spec().controller().resources(), &json)
           .ok()) {
    return;
  }
  w.Key("resources");
  w.RawValue(json.data(), json.size(), rapidjson::kObjectType);
}

void WriteSlurmctldContainer(JsonWriter& w, const v1::SlurmCluster& cluster) {
  StartContainer(w, "slurmctld", cluster.spec().images().controller(), {"slurmctld", "-D"});
  WriteEnv(w, {{"TIDEPOOL_SLURM_CONFIG_DIR", kSlurmConfigMountPath},
               {"TIDEPOOL_MUNGE_KEY", absl::StrCat(kMungeKeyMountPath, "/", api::kMungeKeyFile)},
               {"TIDEPOOL_JWT_KEY", absl::StrCat(kJwtKeyMountPath, "/", api::kJwtKeyFile)},
               {"TIDEPOOL_STATE_DIR", kStateSaveMountPath},
               {kUsersDirEnv, kUsersMountPath}});
  // A backup listens while standing by, so ready means reachable for both.
  WriteServedPort(w, "slurmctld", kSlurmctldPort);
  WriteResources(w, cluster);
  WriteMounts(w);
  w.EndObject();
}

void WritePodTemplate(JsonWriter& w, const ControllerInputs& inputs) {
  const v1::SlurmCluster& cluster = *inputs.cluster;
  w.Key("template");
  w.StartObject();
  w.Key("metadata");
  w.StartObject();
  w.Key("labels");
  WriteComponentLabels(w, cluster, api::kSlurmctldComponent);
  w.EndObject();
  w.Key("spec");
  w.StartObject();
  // slurmctld saves its state on SIGTERM; give it time to.
  w.Key("terminationGracePeriodSeconds");
  w.Int(30);
  w.Key("enableServiceLinks");
  w.Bool(false);
  // Slurm names nodes by their bare names; their pods are in the compute Service's domain.
  w.Key("dnsConfig");
  w.StartObject();
  w.Key("searches");
  w.StartArray();
  w.String(api::ComputeSearchDomain(ClusterName(cluster), cluster.metadata().namespace_(),
                                    inputs.cluster_domain)
               .c_str());
  w.EndArray();
  w.EndObject();
  w.Key("containers");
  w.StartArray();
  WriteSlurmctldContainer(w, cluster);
  w.EndArray();
  WriteVolumes(w, inputs);
  w.EndObject();
  w.EndObject();
}

}  // namespace

absl::StatusOr<int> ControllerReplicas(const v1::SlurmCluster& cluster) {
  const v1::ControllerSpec& spec = cluster.spec().controller();
  const int replicas = spec.has_replicas() ? spec.replicas() : 1;
  if (replicas != 1 && replicas != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("spec.controller.replicas is ", replicas,
                     "; use 1 (a primary slurmctld) or 2 (primary and backup)"));
  }
  return replicas;
}

absl::Status ValidateControllerSpec(const v1::SlurmCluster& cluster) {
  // Also keeps the pods' hostnames "<name>-controller-<i>" within a DNS label (63).
  if (absl::Status named = CheckStatefulSetName(
          ClusterName(cluster), api::ControllerName(ClusterName(cluster)), "slurmctld");
      !named.ok()) {
    return named;
  }
  if (absl::StatusOr<int> replicas = ControllerReplicas(cluster); !replicas.ok()) {
    return replicas.status();
  }
  if (cluster.spec().images().controller().empty()) {
    return absl::InvalidArgumentError(
        "spec.images.controller is empty; name the slurmctld image to run");
  }
  const std::string& size = cluster.spec().controller().state_save().size();
  if (!size.empty()) {
    absl::StatusOr<int64_t> bytes = k8s::QuantityValue(size);
    if (!bytes.ok() || *bytes <= 0) {
      return absl::InvalidArgumentError(absl::StrCat("spec.controller.stateSave.size \"", size,
                                                     "\" is not a positive quantity such as 50Gi"));
    }
  }
  return absl::OkStatus();
}

std::string ControllerServiceBody(const v1::SlurmCluster& cluster) {
  return HeadlessServiceBody(cluster, api::ControllerName(ClusterName(cluster)),
                             api::kSlurmctldComponent, api::kSlurmctldComponent, kSlurmctldPort);
}

std::string ComputeServiceBody(const v1::SlurmCluster& cluster) {
  return HeadlessServiceBody(cluster, api::ComputeServiceName(ClusterName(cluster)),
                             api::kSlurmdComponent, api::kSlurmdComponent, kSlurmdPort);
}

std::string ControllerDisruptionBudgetBody(const v1::SlurmCluster& cluster) {
  return JsonObject([&](JsonWriter& w) {
    WriteTypeMeta(w, "policy/v1", "PodDisruptionBudget");
    WriteOwnedMetadata(w, cluster, api::ControllerName(ClusterName(cluster)),
                       api::kSlurmctldComponent);
    w.Key("spec");
    w.StartObject();
    // One at a time: a node drain may move a lone slurmctld (its state is on the claim),
    // but never takes primary and backup together.
    w.Key("maxUnavailable");
    w.Int(1);
    WriteSelector(w, cluster, api::kSlurmctldComponent);
    w.EndObject();
  });
}

std::string ComputeDisruptionBudgetBody(const v1::SlurmCluster& cluster) {
  return JsonObject([&](JsonWriter& w) {
    WriteTypeMeta(w, "policy/v1", "PodDisruptionBudget");
    WriteOwnedMetadata(w, cluster, api::ComputeServiceName(ClusterName(cluster)),
                       api::kSlurmdComponent);
    w.Key("spec");
    w.StartObject();
    // More than there can be pods: no Ready slurmd pod is ever evictable. Not
    // maxUnavailable 0, which makes the disruption controller read each pod's NodeSet
    // through its scale subresource and fail on one without spec.replicas; its API server
    // then answers evictions "still being processed" with a retry-after that kubectl
    // waits out silently.
    w.Key("minAvailable");
    w.Int(std::numeric_limits<int32_t>::max());
    k8s::WriteStringMember(w, "unhealthyPodEvictionPolicy", "AlwaysAllow");
    WriteSelector(w, cluster, api::kSlurmdComponent);
    w.EndObject();
  });
}

std::string ControllerStatefulSetBody(const ControllerInputs& inputs) {
  const v1::SlurmCluster& cluster = *inputs.cluster;
  const std::string name = api::ControllerName(ClusterName(cluster));
  return JsonObject([&](JsonWriter& w) {
    WriteTypeMeta(w, "apps/v1", "StatefulSet");
    WriteOwnedMetadata(w, cluster, name, api::kSlurmctldComponent);
    w.Key("spec");
    w.StartObject();
    w.Key("replicas");
    w.Int(ControllerReplicas(cluster).value_or(1));
    k8s::WriteStringMember(w, "serviceName", name);
    // The backup starts with the primary, not after it is ready.
    k8s::WriteStringMember(w, "podManagementPolicy", "Parallel");
    WriteSelector(w, cluster, api::kSlurmctldComponent);
    WritePodTemplate(w, inputs);
    w.EndObject();
  });
}

WantedClaim WantedStateClaim(const v1::SlurmCluster& cluster) {
  const v1::VolumeClaim& state = cluster.spec().controller().state_save();
  return {.field = "spec.controller.stateSave",
          .name = api::ControllerStateClaimName(ClusterName(cluster)),
          .storage_class = state.storage_class_name(),
          .size = state.size().empty() ? kDefaultStateSaveSize : state.size(),
          .move_advice =
              "move the state: stop slurmctld, copy the claim's data, delete the "
              "claim and let the controller make it again as the spec asks"};
}

std::string ControllerStateClaimBody(const v1::SlurmCluster& cluster) {
  const WantedClaim wanted = WantedStateClaim(cluster);
  const bool shared = ControllerReplicas(cluster).value_or(1) == 2;
  return JsonObject([&](JsonWriter& w) {
    WriteTypeMeta(w, "v1", "PersistentVolumeClaim");
    WriteOwnedMetadata(w, cluster, wanted.name, api::kSlurmctldComponent,
                       Ownership::kOutlivesCluster);
    w.Key("spec");
    w.StartObject();
    WriteClaimSpecMembers(w, shared ? "ReadWriteMany" : "ReadWriteOnce", wanted.storage_class,
                          wanted.size);
    w.EndObject();
  });
}

absl::Status CheckStateClaimFits(absl::string_view claim_json, int replicas) {
  if (replicas < 2) return absl::OkStatus();
  absl::StatusOr<rapidjson::Document> doc =
      k8s::ParseJsonObject(claim_json, "PersistentVolumeClaim");
  if (!doc.ok()) return doc.status();
  const rapidjson::Value* spec = k8s::FindMember(*doc, "spec");
  const rapidjson::Value* modes = spec != nullptr ? k8s::FindMember(*spec, "accessModes") : nullptr;
  if (modes != nullptr && modes->IsArray()) {
    for (const rapidjson::Value& mode : modes->GetArray()) {
      if (mode.IsString() && absl::string_view(mode.GetString()) == "ReadWriteMany") {
        return absl::OkStatus();
      }
    }
  }
  const rapidjson::Value* metadata = k8s::FindMember(*doc, "metadata");
  const std::string name = metadata != nullptr ? k8s::StringMember(*metadata, "name") : "";
  return absl::FailedPreconditionError(absl::StrCat(
      "PersistentVolumeClaim ", name,
      " is not ReadWriteMany, which a primary and a backup slurmctld need to share their state; "
      "set spec.controller.replicas to 1, or move the state to a ReadWriteMany claim (stop "
      "slurmctld, copy the data, delete the claim and let the controller create it again)"));
}

}  // namespace tidepool::cluster

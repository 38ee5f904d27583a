#include "manifest_writing.h"

#include "owned_metadata.h"
#include "rapidjson/stringbuffer.h"
#include "tidepool/naming.h"

namespace tidepool::cluster {

void WriteTypeMeta(k8s::JsonWriter& w, absl::string_view api_version, absl::string_view kind) {
  k8s::WriteStringMember(w, "apiVersion", api_version);
  k8s::WriteStringMember(w, "kind", kind);
}

void WriteSelector(k8s::JsonWriter& w, const v1::SlurmCluster& cluster,
                   absl::string_view component) {
  w.Key("selector");
  w.StartObject();
  w.Key("matchLabels");
  WriteComponentLabels(w, cluster, component);
  w.EndObject();
}

void StartContainer(k8s::JsonWriter& w, absl::string_view name, absl::string_view image,
                    std::initializer_list<std::string> args) {
  w.StartObject();
  k8s::WriteStringMember(w, "name", name);
  k8s::WriteStringMember(w, "image", image);
  w.Key("args");
  w.StartArray();
  for (const std::string& arg : args) w.String(arg.c_str());
  w.EndArray();
}

void WriteEnv(k8s::JsonWriter& w,
              std::initializer_list<std::pair<const char*, std::string>> variables) {
  w.Key("env");
  w.StartArray();
  for (const auto& [name, value] : variables) {
    w.StartObject();
    k8s::WriteStringMember(w, "name", name);
    k8s::WriteStringMember(w, "value", value);
    w.EndObject();
  }
  w.EndArray();
}

void WriteServedPort(k8s::JsonWriter& w, absl::string_view name, int port) {
  w.Key("ports");
  w.StartArray();
  w.StartObject();
  k8s::WriteStringMember(w, "name", name);
  w.Key("containerPort");
  w.Int(port);
  w.EndObject();
  w.EndArray();
  // Listening is what the daemon's clients need.
  w.Key("readinessProbe");
  w.StartObject();
  w.Key("tcpSocket");
  w.StartObject();
  w.Key("port");
  w.Int(port);
  w.EndObject();
  w.Key("periodSeconds");
  w.Int(5);
  w.EndObject();
}

void WriteServicePorts(k8s::JsonWriter& w, absl::string_view name, int port) {
  w.Key("ports");
  w.StartArray();
  w.StartObject();
  k8s::WriteStringMember(w, "name", name);
  w.Key("port");
  w.Int(port);
  w.Key("targetPort");
  w.Int(port);
  w.EndObject();
  w.EndArray();
}

std::string DeploymentBody(const v1::SlurmCluster& cluster, const DeploymentShape& shape,
                           const std::function<void(k8s::JsonWriter&)>& pod_spec) {
  return JsonObject([&](k8s::JsonWriter& w) {
    WriteTypeMeta(w, "apps/v1", "Deployment");
    WriteOwnedMetadata(w, cluster, shape.name, shape.component);
    w.Key("spec");
    w.StartObject();
    w.Key("replicas");
    w.Int(shape.replicas);
    if (shape.recreate) {
      w.Key("strategy");
      w.StartObject();
      k8s::WriteStringMember(w, "type", "Recreate");
      w.EndObject();
    }
    WriteSelector(w, cluster, shape.component);
    w.Key("template");
    w.StartObject();
    w.Key("metadata");
    w.StartObject();
    w.Key("labels");
    WriteComponentLabels(w, cluster, shape.component);
    if (!shape.pod_annotations.empty()) {
      w.Key("annotations");
      w.StartObject();
      for (const auto& [key, value] : shape.pod_annotations) k8s::WriteStringMember(w, key, value);
      w.EndObject();
    }
    w.EndObject();
    w.Key("spec");
    w.StartObject();
    w.Key("enableServiceLinks");
    w.Bool(false);
    if (shape.termination_grace_seconds > 0) {
      w.Key("terminationGracePeriodSeconds");
      w.Int(shape.termination_grace_seconds);
    }
    pod_spec(w);
    w.EndObject();
    w.EndObject();
    w.EndObject();
  });
}

void WriteServiceSelectorAndPort(k8s::JsonWriter& w, const v1::SlurmCluster& cluster,
                                 absl::string_view component, absl::string_view port_name,
                                 int port) {
  w.Key("selector");
  WriteComponentLabels(w, cluster, component);
  WriteServicePorts(w, port_name, port);
}

std::string ServiceBody(const v1::SlurmCluster& cluster, const std::string& name,
                        absl::string_view component, absl::string_view port_name, int port) {
  return JsonObject([&](k8s::JsonWriter& w) {
    WriteTypeMeta(w, "v1", "Service");
    WriteOwnedMetadata(w, cluster, name, component);
    w.Key("spec");
    w.StartObject();
    WriteServiceSelectorAndPort(w, cluster, component, port_name, port);
    w.EndObject();
  });
}

void WriteClaimSpecMembers(k8s::JsonWriter& w, absl::string_view access_mode,
                           absl::string_view storage_class, absl::string_view size) {
  w.Key("accessModes");
  w.StartArray();
  w.String(access_mode.data(), static_cast<rapidjson::SizeType>(access_mode.size()));
  w.EndArray();
  if (!storage_class.empty()) k8s::WriteStringMember(w, "storageClassName", storage_class);
  w.Key("resources");
  w.StartObject();
  w.Key("requests");
  w.StartObject();
  k8s::WriteStringMember(w, "storage", size);
  w.EndObject();
  w.EndObject();
}

std::string HeadlessServiceBody(const v1::SlurmCluster& cluster, const std::string& name,
                                absl::string_view component, absl::string_view port_name,
                                int port) {
  return JsonObject([&](k8s::JsonWriter& w) {
    WriteTypeMeta(w, "v1", "Service");
    WriteOwnedMetadata(w, cluster, name, component);
    w.Key("spec");
    w.StartObject();
    k8s::WriteStringMember(w, "clusterIP", "None");
    w.Key("publishNotReadyAddresses");
    w.Bool(true);
    WriteServiceSelectorAndPort(w, cluster, component, port_name, port);
    w.EndObject();
  });
}

void WriteConfigVolume(k8s::JsonWriter& w, const v1::SlurmCluster& cluster) {
  w.StartObject();
  k8s::WriteStringMember(w, "name", "config");
  w.Key("configMap");
  w.StartObject();
  k8s::WriteStringMember(w, "name", api::SlurmConfigMapName(cluster.metadata().name()));
  w.EndObject();
  w.EndObject();
}

void WriteUsersVolume(k8s::JsonWriter& w, const v1::SlurmCluster& cluster) {
  w.StartObject();
  k8s::WriteStringMember(w, "name", "users");
  w.Key("configMap");
  w.StartObject();
  k8s::WriteStringMember(w, "name", api::UsersConfigMapName(cluster.metadata().name()));
  w.Key("optional");
  w.Bool(true);
  w.EndObject();
  w.EndObject();
}

void WriteSecretVolume(k8s::JsonWriter& w, absl::string_view name, absl::string_view secret,
                       int mode) {
  w.StartObject();
  k8s::WriteStringMember(w, "name", name);
  w.Key("secret");
  w.StartObject();
  k8s::WriteStringMember(w, "secretName", secret);
  w.Key("defaultMode");
  w.Int(mode);
  w.EndObject();
  w.EndObject();
}

void WriteMount(k8s::JsonWriter& w, absl::string_view volume, absl::string_view path,
                bool read_only) {
  w.StartObject();
  k8s::WriteStringMember(w, "name", volume);
  k8s::WriteStringMember(w, "mountPath", path);
  w.Key("readOnly");
  w.Bool(read_only);
  w.EndObject();
}

}  // namespace tidepool::cluster

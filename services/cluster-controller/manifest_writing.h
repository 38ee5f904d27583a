#pragma once

// Pieces of the manifests the cluster-controller's builders write (controller_builders.h,
// restapi_builders.h): type meta, env, volumes of the cluster's config and key Secrets,
// ports and probes, each into an open JSON object or array.

#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <utility>

#include "absl/strings/string_view.h"
#include "k8s/object_json.h"
#include "tidepool/v1/slurm_cluster.pb.h"

namespace tidepool::cluster {

// Where the Slurm pods have what they mount (the image's entrypoint reads these paths).
inline constexpr char kSlurmConfigMountPath[] = "/etc/tidepool/slurm-config";
inline constexpr char kMungeKeyMountPath[] = "/etc/tidepool/munge";
inline constexpr char kJwtKeyMountPath[] = "/etc/tidepool/jwt";
// The login users' accounts (api::UsersConfigMapName): the entrypoint adds them to
// /etc/passwd and /etc/group, so slurmctld, slurmd and the login pods resolve their uids.
inline constexpr char kUsersMountPath[] = "/etc/tidepool/users";
inline constexpr char kUsersDirEnv[] = "TIDEPOOL_USERS_DIR";

using k8s::JsonObject;

void WriteTypeMeta(k8s::JsonWriter& w, absl::string_view api_version, absl::string_view kind);
// "selector": {"matchLabels": {component, cluster}}.
void WriteSelector(k8s::JsonWriter& w, const v1::SlurmCluster& cluster,
                   absl::string_view component);
void WriteEnv(k8s::JsonWriter& w,
              std::initializer_list<std::pair<const char*, std::string>> variables);
// Opens a container object (into the open "containers" array) with its name, image and
// args; the caller writes the rest and closes it.
void StartContainer(k8s::JsonWriter& w, absl::string_view name, absl::string_view image,
                    std::initializer_list<std::string> args);
// "ports": [{name, containerPort}] and a TCP readiness probe on it.
void WriteServedPort(k8s::JsonWriter& w, absl::string_view name, int port);
// "ports" of a Service: [{name, port, targetPort}].
void WriteServicePorts(k8s::JsonWriter& w, absl::string_view name, int port);

// A whole Deployment of a component's pods: replicas, selector and pod labels, no service
// links; `pod_spec` writes the rest of the pod spec (containers, volumes, ...) into it.
// `recreate`: strategy Recreate, never an old and a new pod at once.
struct DeploymentShape {
  std::string name;
  absl::string_view component;
  int replicas = 1;
  bool recreate = false;
  int termination_grace_seconds = 0;  // 0: Kubernetes' default (30 s)
  // On the pod template: a change rolls the pods.
  std::map<std::string, std::string> pod_annotations;
};
std::string DeploymentBody(const v1::SlurmCluster& cluster, const DeploymentShape& shape,
                           const std::function<void(k8s::JsonWriter&)>& pod_spec);

// "spec" members of a Service over a component's pods on one port: the selector and ports
// (the caller adds type and the like before).
void WriteServiceSelectorAndPort(k8s::JsonWriter& w, const v1::SlurmCluster& cluster,
                                 absl::string_view component, absl::string_view port_name,
                                 int port);
// A whole ClusterIP Service over a component's pods on one port.
std::string ServiceBody(const v1::SlurmCluster& cluster, const std::string& name,
                        absl::string_view component, absl::string_view port_name, int port);

// The members of a PersistentVolumeClaim's spec: one access mode, the class when given,
// and the size.
void WriteClaimSpecMembers(k8s::JsonWriter& w, absl::string_view access_mode,
                           absl::string_view storage_class, absl::string_view size);

// A whole headless Service over a component's pods that also publishes the not-ready ones:
// a backup slurmctld, a registering slurmd or a starting database is reached before it is
// ready.
std::string HeadlessServiceBody(const v1::SlurmCluster& cluster, const std::string& name,
                                absl::string_view component, absl::string_view port_name, int port);

// Volume objects (into the open "volumes" array).
void WriteConfigVolume(k8s::JsonWriter& w, const v1::SlurmCluster& cluster);  // "config"
// Files mode 0400 unless `mode` says otherwise (0440 for a non-root pod's fsGroup).
void WriteSecretVolume(k8s::JsonWriter& w, absl::string_view name, absl::string_view secret,
                       int mode = 0400);
// "users": the users ConfigMap, optional (there is none without login users).
void WriteUsersVolume(k8s::JsonWriter& w, const v1::SlurmCluster& cluster);
// A volumeMounts entry.
void WriteMount(k8s::JsonWriter& w, absl::string_view volume, absl::string_view path,
                bool read_only);

}  // namespace tidepool::cluster

#include "restapi_builders.h"

#include "absl/strings/str_cat.h"
#include "k8s/object_json.h"
#include "manifest_writing.h"
#include "owned_metadata.h"
#include "tidepool/contract.h"
#include "tidepool/naming.h"

namespace tidepool::cluster {
namespace {

using k8s::JsonWriter;

constexpr int kMaxRestApiReplicas = 10;
constexpr char kTlsMountPath[] = "/etc/tidepool/restapi-tls";

// The OpenAPI plugins slurmrestd serves: slurmdbd's only with accounting.
std::string OpenApiSources(const v1::SlurmCluster& cluster) {
  return cluster.spec().accounting().enabled() ? "openapi/slurmctld,openapi/slurmdbd"
                                               : "openapi/slurmctld";
}

// Ready while something listens on the pod's loopback `port`: kubelet's own probes reach
// only the pod's address. bash is in every Debian image; connecting is all it does.
void WriteLoopbackReadiness(JsonWriter& w, int port) {
  w.Key("readinessProbe");
  w.StartObject();
  w.Key("exec");
  w.StartObject();
  w.Key("command");
  w.StartArray();
  for (const std::string& arg : {std::string("bash"), std::string("-c"),
                                 absl::StrCat("exec 3<>/dev/tcp/127.0.0.1/", port)}) {
    w.String(arg.c_str());
  }
  w.EndArray();
  w.EndObject();
  w.Key("periodSeconds");
  w.Int(5);
  w.EndObject();
}

void WriteSlurmrestdContainer(JsonWriter& w, const v1::SlurmCluster& cluster) {
  StartContainer(w, "slurmrestd", cluster.spec().images().rest_api(),
                 {"slurmrestd", "-s", OpenApiSources(cluster), "-a", "rest_auth/jwt",
                  absl::StrCat("127.0.0.1:", api::kSlurmrestdLoopbackPort)});
  WriteEnv(w, {{"TIDEPOOL_SLURM_CONFIG_DIR", kSlurmConfigMountPath},
               {"TIDEPOOL_MUNGE_KEY", absl::StrCat(kMungeKeyMountPath, "/", api::kMungeKeyFile)},
               {"TIDEPOOL_RUN_AS", kSlurmrestdUser},
               // Its own requests to slurmctld carry the caller's token, not one of its own.
               {"SLURM_JWT", "daemon"},
               // Without indentation: slurm-syncer polls the whole node list, which at
               // 10,000 nodes is tens of MB pretty-printed (the default).
               {"SLURMRESTD_JSON", "compact"}});
  WriteLoopbackReadiness(w, api::kSlurmrestdLoopbackPort);
  w.Key("volumeMounts");
  w.StartArray();
  WriteMount(w, "config", kSlurmConfigMountPath, true);
  WriteMount(w, "munge-key", kMungeKeyMountPath, true);
  w.EndArray();
  w.EndObject();
}

// TLS in front of slurmrestd, which serves only the pod's loopback: the image's
// entrypoint runs stunnel with the certificate of the mounted Secret (restapi_tls.h).
void WriteTlsFrontContainer(JsonWriter& w, const v1::SlurmCluster& cluster) {
  StartContainer(w, "tls", cluster.spec().images().rest_api(), {"tidepool-tls-front"});
  WriteEnv(w, {{"TIDEPOOL_TLS_DIR", kTlsMountPath},
               {"TIDEPOOL_TLS_ACCEPT", absl::StrCat(api::kSlurmrestdPort)},
               {"TIDEPOOL_TLS_CONNECT", absl::StrCat("127.0.0.1:", api::kSlurmrestdLoopbackPort)},
               {"TIDEPOOL_RUN_AS", kSlurmrestdUser}});
  WriteServedPort(w, "https", api::kSlurmrestdPort);
  w.Key("volumeMounts");
  w.StartArray();
  WriteMount(w, "tls", kTlsMountPath, true);
  w.EndArray();
  w.EndObject();
}

}  // namespace

absl::StatusOr<int> RestApiReplicas(const v1::SlurmCluster& cluster) {
  const v1::RestApiSpec& spec = cluster.spec().rest_api();
  const int replicas = spec.has_replicas() ? spec.replicas() : 1;
  if (replicas < 1 || replicas > kMaxRestApiReplicas) {
    return absl::InvalidArgumentError(
        absl::StrCat("spec.restApi.replicas is ", replicas, "; use 1 to ", kMaxRestApiReplicas));
  }
  return replicas;
}

absl::Status ValidateRestApiSpec(const v1::SlurmCluster& cluster) {
  if (absl::StatusOr<int> replicas = RestApiReplicas(cluster); !replicas.ok()) {
    return replicas.status();
  }
  if (cluster.spec().images().rest_api().empty()) {
    return absl::InvalidArgumentError(
        "spec.images.restApi is empty; name the slurmrestd image to run");
  }
  return absl::OkStatus();
}

std::string RestApiDeploymentBody(const RestApiInputs& inputs) {
  const v1::SlurmCluster& cluster = *inputs.cluster;
  return DeploymentBody(
      cluster,
      {.name = api::RestApiName(cluster.metadata().name()),
       .component = api::kSlurmrestdComponent,
       .replicas = RestApiReplicas(cluster).value_or(1),
       // Stateless, and it waits for its clients' keep-alive connections
       // to close: seen taking the whole default 30 s to stop.
       .termination_grace_seconds = 5,
       .pod_annotations = {{api::kTlsCertDigestAnnotation, inputs.tls_cert_digest}}},
      [&](JsonWriter& w) {
        w.Key("containers");
        w.StartArray();
        WriteSlurmrestdContainer(w, cluster);
        WriteTlsFrontContainer(w, cluster);
        w.EndArray();
        w.Key("volumes");
        w.StartArray();
        WriteConfigVolume(w, cluster);
        WriteSecretVolume(w, "munge-key", inputs.munge_key_secret);
        WriteSecretVolume(w, "tls", inputs.tls_secret);
        w.EndArray();
      });
}

std::string RestApiServiceBody(const v1::SlurmCluster& cluster) {
  return ServiceBody(cluster, api::RestApiName(cluster.metadata().name()),
                     api::kSlurmrestdComponent, "https", api::kSlurmrestdPort);
}

}  // namespace tidepool::cluster

#include "restapi_url.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cluster_object.h"
#include "k8s/object_json.h"
#include "k8s/ownership.h"
#include "k8s/resource.h"
#include "k8s/secret_data.h"
#include "tidepool/naming.h"
#include "tidepool/resource_types.h"
#include "tidepool/resources.h"

namespace tidepool::syncer {
namespace {

constexpr char kCaFile[] = "ca.crt";

bool ServesRestPort(const rapidjson::Value& spec) {
  const rapidjson::Value* ports = k8s::FindMember(spec, "ports");
  if (ports == nullptr || !ports->IsArray()) return false;
  for (const rapidjson::Value& port : ports->GetArray()) {
    if (k8s::IntMember(port, "port") == api::kSlurmrestdPort) return true;
  }
  return false;
}

}  // namespace

std::string RestApiHost(const api::ClusterRef& cluster) {
  return absl::StrCat(api::RestApiName(cluster.name), ".", cluster.namespace_name, ".svc");
}

std::string RestUrlByDns(const api::ClusterRef& cluster) {
  return absl::StrCat("https://", RestApiHost(cluster), ":", api::kSlurmrestdPort);
}

absl::StatusOr<std::string> ConnectToFromService(absl::string_view service_json,
                                                 absl::string_view host) {
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(service_json, "Service");
  if (!doc.ok()) return doc.status();
  const rapidjson::Value* spec = k8s::FindMember(*doc, "spec");
  const std::string ip = spec != nullptr ? k8s::StringMember(*spec, "clusterIP") : "";
  if (ip.empty() || ip == "None") {
    return absl::FailedPreconditionError(
        absl::StrCat("has no ClusterIP (spec.clusterIP=\"", ip, "\")"));
  }
  if (!ServesRestPort(*spec)) {
    return absl::FailedPreconditionError(
        absl::StrCat("does not serve port ", api::kSlurmrestdPort));
  }
  // An IPv6 address needs brackets here as in a URL.
  const bool v6 = ip.find(':') != std::string::npos;
  return absl::StrCat(host, ":", api::kSlurmrestdPort, ":", v6 ? "[" : "", ip, v6 ? "]" : "", ":",
                      api::kSlurmrestdPort);
}

absl::StatusOr<std::string> CaFromTlsSecret(absl::string_view secret_json, absl::string_view secret,
                                            absl::string_view cluster_uid) {
  if (!k8s::IsControlledByUid(secret_json, cluster_uid)) {
    return SecretProblem(secret,
                         absl::StrCat("is not controlled by the SlurmCluster (uid ", cluster_uid,
                                      "), so its CA is not trusted: delete "
                                      "it to have the cluster-controller make one"));
  }
  absl::StatusOr<std::string> ca = k8s::SecretDataValue(secret_json, kCaFile);
  if (!ca.ok()) return SecretProblem(secret, ca.status().message());
  if (!absl::StrContains(*ca, "-----BEGIN CERTIFICATE-----")) {
    return SecretProblem(secret, absl::StrCat("holds no PEM certificate under \"", kCaFile, "\""));
  }
  return ca;
}

absl::StatusOr<RestEndpoint> ReadRestEndpoint(k8s::Client& client, const api::ClusterRef& cluster,
                                              bool via_service, absl::Duration timeout) {
  const std::string& ns = cluster.namespace_name;
  RestEndpoint endpoint{.base_url = RestUrlByDns(cluster)};
  if (via_service) {
    const std::string name = api::RestApiName(cluster.name);
    absl::StatusOr<std::string> json =
        GetClusterObject(client, k8s::Services(), "Service", ns, name, timeout);
    if (!json.ok()) return json.status();
    absl::StatusOr<std::string> connect_to = ConnectToFromService(*json, RestApiHost(cluster));
    if (!connect_to.ok()) {
      return absl::Status(connect_to.status().code(), absl::StrCat("Service ", ns, "/", name, " ",
                                                                   connect_to.status().message()));
    }
    endpoint.connect_to = *std::move(connect_to);
  }
  absl::StatusOr<std::string> cluster_json =
      GetClusterObject(client, api::SlurmClusters(), "SlurmCluster", ns, cluster.name, timeout);
  if (!cluster_json.ok()) return cluster_json.status();
  absl::StatusOr<k8s::ObjectMeta> cluster_meta = k8s::ParseObjectMeta(*cluster_json);
  if (!cluster_meta.ok()) return cluster_meta.status();
  const std::string secret = api::RestApiTlsSecretName(cluster.name);
  absl::StatusOr<std::string> json =
      GetClusterObject(client, k8s::Secrets(), "Secret", ns, secret, timeout);
  if (!json.ok()) return json.status();
  absl::StatusOr<std::string> ca =
      CaFromTlsSecret(*json, absl::StrCat(ns, "/", secret), cluster_meta->uid);
  if (!ca.ok()) return ca.status();
  endpoint.ca_pem = *std::move(ca);
  return endpoint;
}

}  // namespace tidepool::syncer

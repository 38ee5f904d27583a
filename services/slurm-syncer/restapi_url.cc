#include "restapi_url.h"

#include "absl/strings/str_cat.h"
#include "k8s/object_json.h"
#include "k8s/resource.h"
#include "tidepool/naming.h"

namespace tidepool::syncer {
namespace {

bool ServesRestPort(const rapidjson::Value& spec) {
  const rapidjson::Value* ports = k8s::FindMember(spec, "ports");
  if (ports == nullptr || !ports->IsArray()) return false;
  for (const rapidjson::Value& port : ports->GetArray()) {
    if (k8s::IntMember(port, "port") == api::kSlurmrestdPort) return true;
  }
  return false;
}

}  // namespace

std::string RestUrlByDns(const api::ClusterRef& cluster) {
  return absl::StrCat("http://", api::RestApiName(cluster.name), ".", cluster.namespace_name,
                      ".svc:", api::kSlurmrestdPort);
}

absl::StatusOr<std::string> RestUrlFromService(absl::string_view service_json) {
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
  // An IPv6 ClusterIP needs brackets in a URL.
  const bool v6 = ip.find(':') != std::string::npos;
  return absl::StrCat("http://", v6 ? "[" : "", ip, v6 ? "]" : "", ":", api::kSlurmrestdPort);
}

absl::StatusOr<std::string> ReadRestUrlFromService(k8s::Client& client,
                                                   const api::ClusterRef& cluster,
                                                   absl::Duration timeout) {
  const std::string service =
      absl::StrCat("Service ", cluster.namespace_name, "/", api::RestApiName(cluster.name));
  absl::StatusOr<std::string> json =
      client.Get(k8s::Services(), cluster.namespace_name, api::RestApiName(cluster.name), timeout);
  if (absl::IsNotFound(json.status())) {
    return absl::FailedPreconditionError(absl::StrCat(service, " not found"));
  }
  if (!json.ok()) {
    return absl::Status(json.status().code(),
                        absl::StrCat("cannot read ", service, ": ", json.status().message()));
  }
  absl::StatusOr<std::string> url = RestUrlFromService(*json);
  if (!url.ok()) {
    return absl::Status(url.status().code(), absl::StrCat(service, " ", url.status().message()));
  }
  return url;
}

}  // namespace tidepool::syncer

#include "cluster_object.h"

#include "absl/strings/str_cat.h"

namespace tidepool::syncer {

absl::StatusOr<std::string> GetClusterObject(k8s::Client& client, const k8s::ResourceType& type,
                                             absl::string_view kind, absl::string_view ns,
                                             absl::string_view name, absl::Duration timeout) {
  absl::StatusOr<std::string> json = client.Get(type, ns, name, timeout);
  if (json.ok()) return json;
  if (absl::IsNotFound(json.status())) {
    return absl::FailedPreconditionError(absl::StrCat(kind, " ", ns, "/", name, " not found"));
  }
  return absl::Status(json.status().code(), absl::StrCat("cannot read ", kind, " ", ns, "/", name,
                                                         ": ", json.status().message()));
}

absl::Status SecretProblem(absl::string_view secret, absl::string_view problem) {
  return absl::FailedPreconditionError(absl::StrCat("Secret ", secret, " ", problem));
}

}  // namespace tidepool::syncer

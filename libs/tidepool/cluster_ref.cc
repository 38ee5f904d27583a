#include "tidepool/cluster_ref.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "k8s/dns_names.h"
#include "k8s/object_json.h"

namespace tidepool::api {

std::string ClusterRef::ToString() const { return absl::StrCat(namespace_name, "/", name); }

absl::StatusOr<ClusterRef> ParseClusterRef(absl::string_view text, absl::string_view flag) {
  std::vector<absl::string_view> parts = absl::StrSplit(text, '/');
  if (parts.size() != 2 || !k8s::IsDnsLabel(parts[0]) || !k8s::IsDnsLabel(parts[1])) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, "=\"", text,
                     "\" is not <namespace>/<name> of a SlurmCluster (lower-case DNS labels, "
                     "e.g. hpc/research)"));
  }
  return ClusterRef{.namespace_name = std::string(parts[0]), .name = std::string(parts[1])};
}

std::optional<std::string> NodeSetClusterName(absl::string_view node_set_json) {
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(node_set_json, "NodeSet");
  if (!doc.ok()) return std::nullopt;
  const rapidjson::Value* spec = k8s::FindMember(*doc, "spec");
  const rapidjson::Value* ref = spec != nullptr ? k8s::FindMember(*spec, "clusterRef") : nullptr;
  const rapidjson::Value* name = ref != nullptr ? k8s::FindMember(*ref, "name") : nullptr;
  if (name == nullptr || !name->IsString()) return std::nullopt;
  return std::string(name->GetString(), name->GetStringLength());
}

std::string NodeSetClusterKey(absl::string_view ns, absl::string_view node_set_json) {
  std::optional<std::string> name = NodeSetClusterName(node_set_json);
  return name.has_value() ? absl::StrCat(ns, "/", *name) : "";
}

}  // namespace tidepool::api

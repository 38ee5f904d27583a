#pragma once

// Which resource a call is about, and the URL paths and query strings for it.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "rapidjson/document.h"

namespace tidepool::k8s {

// A group-version-resource and its scope. The core group is "" (served under /api/v1);
// every other group under /apis/<group>/<version>.
struct ResourceType {
  std::string group;     // "", "apps", "slurm.tidepool.dev"
  std::string version;   // "v1"
  std::string resource;  // plural: "configmaps", "deployments"
  bool namespaced = true;

  std::string GroupVersion() const;  // "v1", "apps/v1" (an object's apiVersion)
};

// A few built-in types the project uses.
const ResourceType& ConfigMaps();
const ResourceType& Secrets();
const ResourceType& Pods();
const ResourceType& Nodes();
const ResourceType& Events();    // core/v1 (what kubectl describe shows)
const ResourceType& EventsV1();  // events.k8s.io/v1 (what EventRecorder writes)
const ResourceType& Namespaces();
const ResourceType& Deployments();
const ResourceType& StatefulSets();
const ResourceType& Services();
const ResourceType& PodDisruptionBudgets();  // policy/v1
const ResourceType& Leases();
const ResourceType& CustomResourceDefinitions();
const ResourceType& PersistentVolumes();       // cluster-scoped
const ResourceType& PersistentVolumeClaims();  // namespaced
const ResourceType& StorageClasses();          // storage.k8s.io/v1, cluster-scoped

// /api/v1/namespaces/<ns>/configmaps[/<name>[/<subresource>]], or
// /apis/<g>/<v>/<resource>[/<name>…] for a cluster-scoped type or an empty namespace of a
// namespaced one (all namespaces; only valid without a name). InvalidArgument for a
// namespace on a cluster-scoped type, a subresource without a name, or a path segment
// that is empty, ".", ".." or holds '/' or '%'.
absl::StatusOr<std::string> ResourcePath(const ResourceType& type, absl::string_view ns,
                                         absl::string_view name = "",
                                         absl::string_view subresource = "");

// Percent-encodes everything but unreserved characters (RFC 3986).
std::string QueryEscape(absl::string_view value);
// "?k=v&k2=v2" from the pairs whose value is not empty ("" when none are).
std::string QueryString(const std::vector<std::pair<std::string, std::string>>& params);

// The fields of an object's metadata the client and its caches need.
struct ObjectMeta {
  std::string ns;  // empty for cluster-scoped objects
  std::string name;
  std::string uid;
  std::string resource_version;
  int64_t generation = 0;
  bool deleting = false;  // deletionTimestamp set
  std::map<std::string, std::string> labels;

  // "<namespace>/<name>", or "<name>" when cluster-scoped (client-go's MetaNamespaceKey).
  std::string Key() const { return ns.empty() ? name : ns + "/" + name; }
};

// The metadata of an object given as JSON text; InvalidArgument when it is not a JSON
// object with a metadata.name.
absl::StatusOr<ObjectMeta> ParseObjectMeta(absl::string_view json);
// The metadata of a parsed object; fields that are missing stay empty.
ObjectMeta MetaFromValue(const rapidjson::Value& object);

}  // namespace tidepool::k8s

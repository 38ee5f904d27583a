#pragma once

// What a component step deletes once the spec stops asking for the component
// (spec.accounting.enabled back to false, accounting switched to an external database,
// spec.login gone): the objects it applies, found by kind and name in the caches. Pure:
// what the caches hold in, what to delete out (component_step.cc does the I/O).
//
// Only objects this SlurmCluster controls go: an object of the same name someone else
// made is not ours to delete. Secrets and PersistentVolumeClaims never go, even when
// listed: they hold what a re-enabled component needs again (the generated database
// password that matches the kept data, the login host key users' known_hosts trust, the
// database's files).

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "k8s/resource.h"

namespace tidepool::cluster {

// One object a component applies, as its cache holds it now.
struct CachedOwnedObject {
  const k8s::ResourceType* type = nullptr;
  std::string name;
  std::string json;  // empty: not in the cache (never made, or already gone)
};

// One object to delete; `uid` is the incarnation that was checked, passed as the delete's
// precondition so an object made again meanwhile under the same name is left alone.
struct ObjectRemoval {
  const k8s::ResourceType* type = nullptr;
  std::string name;
  std::string uid;

  bool operator==(const ObjectRemoval&) const = default;
};

struct RemovalDecision {
  // In the reverse of the apply order: workloads before the Services in front of them.
  std::vector<ObjectRemoval> remove;
  // "deployments/x": cached under a component's name but controlled by someone else (or
  // by nobody); left in place, worth a log line.
  std::vector<std::string> not_ours;
};

// `owned` in apply order; `cluster_uid` is the SlurmCluster's metadata.uid.
RemovalDecision ObjectsToRemove(const std::vector<CachedOwnedObject>& owned,
                                absl::string_view cluster_uid);

// "deployments/research-login", for logs and events.
std::string ObjectLabel(const k8s::ResourceType& type, absl::string_view name);

}  // namespace tidepool::cluster

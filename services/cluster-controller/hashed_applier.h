#pragma once

// Server-side apply of the objects a step owns, skipped when the cached object already
// carries the hash of the same body (applied_hash.h): syncs that change nothing write
// nothing, and a hand edit of a field we own is undone on the next change of ours.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "k8s/client.h"
#include "k8s/informer.h"
#include "k8s/resource.h"

namespace tidepool::cluster {

// One object a step applies.
struct OwnedObject {
  const k8s::ResourceType* type = nullptr;
  k8s::Informer* cache = nullptr;  // where the applied object shows up
  std::string name;
  std::string body;
};

class HashedApplier {
 public:
  // `client` outlives the applier.
  HashedApplier(k8s::Client& client, std::string field_manager);

  // Applies `body` as ns/name unless `cache` holds it with the same hash; true when it wrote.
  absl::StatusOr<bool> Apply(const k8s::ResourceType& type, k8s::Informer& cache,
                             const std::string& ns, const std::string& name,
                             const std::string& body);
  // Applies each in order, stopping at the first error; true when any was written. The
  // API server's refusal of a body (InvalidArgument) is returned as it is.
  absl::StatusOr<bool> ApplyAll(const std::string& ns, const std::vector<OwnedObject>& objects);

 private:
  k8s::Client& client_;
  const std::string field_manager_;
};

}  // namespace tidepool::cluster

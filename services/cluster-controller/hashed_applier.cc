#include "hashed_applier.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "applied_hash.h"

namespace tidepool::cluster {

HashedApplier::HashedApplier(k8s::Client& client, std::string field_manager)
    : client_(client), field_manager_(std::move(field_manager)) {}

absl::StatusOr<bool> HashedApplier::Apply(const k8s::ResourceType& type, k8s::Informer& cache,
                                          const std::string& ns, const std::string& name,
                                          const std::string& body) {
  absl::StatusOr<std::string> stamped = StampAppliedHash(body);
  if (!stamped.ok()) return stamped.status();
  k8s::CachedObjectPtr cached = cache.Get(absl::StrCat(ns, "/", name));
  if (cached != nullptr && AppliedHashOf(cached->json) == AppliedHashOf(*stamped)) return false;
  absl::Status applied =
      client_.Apply(type, ns, name, *stamped, {.field_manager = field_manager_, .force = true})
          .status();
  if (!applied.ok()) return applied;
  return true;
}

absl::StatusOr<bool> HashedApplier::ApplyAll(const std::string& ns,
                                             const std::vector<OwnedObject>& objects) {
  bool wrote = false;
  for (const OwnedObject& object : objects) {
    absl::StatusOr<bool> applied = Apply(*object.type, *object.cache, ns, object.name, object.body);
    if (!applied.ok()) return applied.status();
    wrote = wrote || *applied;
  }
  return wrote;
}

}  // namespace tidepool::cluster

#pragma once

// Owner references and finalizers on API objects held as JSON, as pure functions (the
// counterparts of client-go's controllerutil helpers). Writes come back as a new object
// to create or update, or as a merge patch that carries the object's resourceVersion, so
// the API server applies it only to the version it was computed from (409 otherwise:
// re-read and retry) and a concurrent writer's finalizer is never dropped.

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tidepool::k8s {

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
  bool block_owner_deletion = false;

  bool operator==(const OwnerReference&) const = default;
};

// metadata.ownerReferences of an object; InvalidArgument when it is not a JSON object.
absl::StatusOr<std::vector<OwnerReference>> OwnerReferences(absl::string_view object_json);
// The reference with controller: true, if any.
absl::StatusOr<std::optional<OwnerReference>> ControllerOf(absl::string_view object_json);
// True when `object_json`'s controller reference points at `owner_json`'s uid.
bool IsControlledBy(absl::string_view object_json, absl::string_view owner_json);
// The same for an owner whose uid is known (an informer's parsed metadata).
bool IsControlledByUid(absl::string_view object_json, absl::string_view owner_uid);

// `object_json` with `owner_json` as its controller (controller and blockOwnerDeletion
// true), replacing an earlier reference to the same owner and keeping other owners.
// FailedPrecondition when another object already controls it; InvalidArgument when the
// owner lacks apiVersion, kind, name or uid, or cannot own it (a namespaced owner of a
// cluster-scoped object, or an owner in another namespace; the garbage collector would
// delete such an object at once).
absl::StatusOr<std::string> SetControllerReference(absl::string_view owner_json,
                                                   absl::string_view object_json);

// metadata.finalizers; InvalidArgument when it is not a JSON object.
absl::StatusOr<std::vector<std::string>> Finalizers(absl::string_view object_json);
bool HasFinalizer(absl::string_view object_json, absl::string_view finalizer);

// A merge patch adding `finalizer` (appended) or removing it, conditional on the object's
// metadata.resourceVersion; nullopt when there is nothing to change. InvalidArgument
// without a resourceVersion (an unconditional write could drop a finalizer another
// controller added meanwhile) or for an empty finalizer name.
absl::StatusOr<std::optional<std::string>> AddFinalizerPatch(absl::string_view object_json,
                                                             absl::string_view finalizer);
absl::StatusOr<std::optional<std::string>> RemoveFinalizerPatch(absl::string_view object_json,
                                                                absl::string_view finalizer);

}  // namespace tidepool::k8s

#pragma once

// How an existing PersistentVolumeClaim stands against the storage its SlurmCluster field
// asks for (spec.controller.stateSave, spec.accounting.managed). Kubernetes never changes
// a claim's class and only grows its size, once the claim is bound and where its
// StorageClass allows expansion: the controller asks for a larger size then, and reports
// any other difference, changing nothing.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "rapidjson/document.h"

namespace tidepool::cluster {

struct WantedClaim {
  std::string field;          // "spec.controller.stateSave", for messages
  std::string name;           // the claim's
  std::string storage_class;  // "": whatever class the claim has
  std::string size;           // a validated quantity
  // How to move the data to a claim of another class ("stop slurmctld, copy …").
  std::string move_advice;
};

// What a claim asks for and has, as written there ("" when absent).
struct ClaimSpec {
  std::string resource_version;  // metadata.resourceVersion (none in a template)
  std::string storage_class;
  std::string size;      // spec.resources.requests.storage
  std::string phase;     // status.phase
  std::string capacity;  // status.capacity.storage
};
// Of a PersistentVolumeClaim, or of a StatefulSet's volumeClaimTemplates item.
ClaimSpec ClaimSpecOf(const rapidjson::Value& claim);
// Of a PersistentVolumeClaim's JSON; an error when it does not parse.
absl::StatusOr<ClaimSpec> ParseClaimSpec(absl::string_view claim_json);

struct ClaimDrift {
  enum class Kind {
    kNone,
    kGrow,          // ask for the larger size
    kNotBound,      // larger asked, but only a bound claim may grow: asked once it is
    kResizing,      // the larger size is asked; the storage has not grown to it yet
    kShrink,        // refused: a claim never shrinks
    kClassDiffers,  // refused: a claim's class never changes
  };
  Kind kind = Kind::kNone;
  std::string have_size;  // the claim's request, as written there
  // kGrow: what differs (the caller says what it asked); the others but kNone: what
  // differs and what to do.
  std::string message;
};

// An error when the claim's size (or capacity) does not parse.
absl::StatusOr<ClaimDrift> CompareClaim(const ClaimSpec& claim, const WantedClaim& wanted);
// The same of the claim's JSON; an error when it does not parse either.
absl::StatusOr<ClaimDrift> CompareClaim(absl::string_view claim_json, const WantedClaim& wanted);

// The merge patch asking for `size`.
std::string ClaimGrowPatch(absl::string_view size);

}  // namespace tidepool::cluster

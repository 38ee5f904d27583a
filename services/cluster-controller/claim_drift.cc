#include "claim_drift.h"

#include "absl/strings/str_cat.h"
#include "k8s/object_json.h"
#include "k8s/quantity.h"
#include "manifest_writing.h"

namespace tidepool::cluster {
namespace {

constexpr char kBound[] = "Bound";

std::string StorageOf(const rapidjson::Value& object, const char* member) {
  const rapidjson::Value* list = k8s::FindMember(object, member);
  return list != nullptr ? k8s::StringMember(*list, "storage") : "";
}

absl::StatusOr<int64_t> BytesOf(const std::string& quantity, const WantedClaim& wanted,
                                const char* what) {
  absl::StatusOr<int64_t> bytes = k8s::QuantityValue(quantity);
  if (bytes.ok()) return bytes;
  return absl::InvalidArgumentError(absl::StrCat("PersistentVolumeClaim ", wanted.name, " ", what,
                                                 " \"", quantity, "\", which is not a quantity"));
}

// Requests what is wanted: done, or still growing when a capacity shows and is smaller.
absl::StatusOr<ClaimDrift> AtWantedSize(const ClaimSpec& claim, const WantedClaim& wanted,
                                        int64_t requested) {
  ClaimDrift drift{.have_size = claim.size};
  if (claim.capacity.empty()) return drift;
  absl::StatusOr<int64_t> capacity = BytesOf(claim.capacity, wanted, "has a capacity of");
  if (!capacity.ok()) return capacity.status();
  if (*capacity < requested) {
    drift.kind = ClaimDrift::Kind::kResizing;
    drift.message =
        absl::StrCat("PersistentVolumeClaim ", wanted.name, " asks for ", claim.size, " and has ",
                     claim.capacity, " so far: its storage is growing it (kubectl describe pvc ",
                     wanted.name, " shows how it goes)");
  }
  return drift;
}

}  // namespace

ClaimSpec ClaimSpecOf(const rapidjson::Value& claim) {
  ClaimSpec result;
  if (const rapidjson::Value* meta = k8s::FindMember(claim, "metadata"); meta != nullptr) {
    result.resource_version = k8s::StringMember(*meta, "resourceVersion");
  }
  if (const rapidjson::Value* spec = k8s::FindMember(claim, "spec"); spec != nullptr) {
    result.storage_class = k8s::StringMember(*spec, "storageClassName");
    if (const rapidjson::Value* resources = k8s::FindMember(*spec, "resources")) {
      result.size = StorageOf(*resources, "requests");
    }
  }
  if (const rapidjson::Value* status = k8s::FindMember(claim, "status"); status != nullptr) {
    result.phase = k8s::StringMember(*status, "phase");
    result.capacity = StorageOf(*status, "capacity");
  }
  return result;
}

absl::StatusOr<ClaimSpec> ParseClaimSpec(absl::string_view claim_json) {
  absl::StatusOr<rapidjson::Document> doc =
      k8s::ParseJsonObject(claim_json, "PersistentVolumeClaim");
  if (!doc.ok()) return doc.status();
  return ClaimSpecOf(*doc);
}

absl::StatusOr<ClaimDrift> CompareClaim(absl::string_view claim_json, const WantedClaim& wanted) {
  absl::StatusOr<ClaimSpec> claim = ParseClaimSpec(claim_json);
  if (!claim.ok()) return claim.status();
  return CompareClaim(*claim, wanted);
}

absl::StatusOr<ClaimDrift> CompareClaim(const ClaimSpec& claim, const WantedClaim& wanted) {
  ClaimDrift drift{.have_size = claim.size};
  if (!wanted.storage_class.empty() && claim.storage_class != wanted.storage_class) {
    drift.kind = ClaimDrift::Kind::kClassDiffers;
    drift.message = absl::StrCat(
        wanted.field, ".storageClassName is \"", wanted.storage_class,
        "\" but PersistentVolumeClaim ", wanted.name, " has class \"", claim.storage_class,
        "\", and a claim's class cannot change; set the field back, or ", wanted.move_advice);
    return drift;
  }
  absl::StatusOr<int64_t> want = k8s::QuantityValue(wanted.size);
  if (!want.ok()) return want.status();
  absl::StatusOr<int64_t> have = BytesOf(claim.size, wanted, "asks for storage");
  if (!have.ok()) return have.status();
  if (*want == *have) return AtWantedSize(claim, wanted, *have);
  const std::string differs =
      absl::StrCat(wanted.field, ".size is ", wanted.size, " but PersistentVolumeClaim ",
                   wanted.name, " has ", claim.size);
  if (*want < *have) {
    drift.kind = ClaimDrift::Kind::kShrink;
    drift.message = absl::StrCat(differs, ", and a claim cannot shrink; it keeps ", claim.size,
                                 " (set the field to at least that)");
  } else if (claim.phase != kBound) {
    drift.kind = ClaimDrift::Kind::kNotBound;
    drift.message = absl::StrCat(differs, ", and is not bound yet (phase \"", claim.phase,
                                 "\"): a claim grows only once bound, and is asked to then");
  } else {
    drift.kind = ClaimDrift::Kind::kGrow;
    drift.message = differs;
  }
  return drift;
}

std::string ClaimGrowPatch(absl::string_view size) {
  return JsonObject([&](k8s::JsonWriter& w) {
    for (const char* member : {"spec", "resources", "requests"}) {
      w.Key(member);
      w.StartObject();
    }
    k8s::WriteStringMember(w, "storage", size);
    for (int open = 0; open < 3; ++open) w.EndObject();
  });
}

}  // namespace tidepool::cluster

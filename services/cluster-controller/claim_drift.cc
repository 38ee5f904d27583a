#include "claim_drift.h"

#include "absl/strings/str_cat.h"
#include "k8s/object_json.h"
#include "k8s/quantity.h"

namespace tidepool::cluster {
namespace {

absl::StatusOr<ClaimSpec> ReadClaimSpec(absl::string_view claim_json) {
  absl::StatusOr<rapidjson::Document> doc =
      k8s::ParseJsonObject(claim_json, "PersistentVolumeClaim");
  if (!doc.ok()) return doc.status();
  return ClaimSpecOf(*doc);
}

}  // namespace

ClaimSpec ClaimSpecOf(const rapidjson::Value& claim) {
  ClaimSpec result;
  const rapidjson::Value* spec = k8s::FindMember(claim, "spec");
  if (spec == nullptr) return result;
  result.storage_class = k8s::StringMember(*spec, "storageClassName");
  const rapidjson::Value* resources = k8s::FindMember(*spec, "resources");
  const rapidjson::Value* requests =
      resources != nullptr ? k8s::FindMember(*resources, "requests") : nullptr;
  if (requests != nullptr) result.size = k8s::StringMember(*requests, "storage");
  return result;
}

absl::StatusOr<ClaimDrift> CompareClaim(absl::string_view claim_json, const WantedClaim& wanted) {
  absl::StatusOr<ClaimSpec> claim = ReadClaimSpec(claim_json);
  if (!claim.ok()) return claim.status();
  ClaimDrift drift{.have_size = claim->size};
  if (!wanted.storage_class.empty() && claim->storage_class != wanted.storage_class) {
    drift.kind = ClaimDrift::Kind::kClassDiffers;
    drift.message = absl::StrCat(
        wanted.field, ".storageClassName is \"", wanted.storage_class,
        "\" but PersistentVolumeClaim ", wanted.name, " has class \"", claim->storage_class,
        "\", and a claim's class cannot change; set the field back, or move the data (stop the "
        "component, copy the data, delete the claim and let the controller create it again)");
    return drift;
  }
  absl::StatusOr<int64_t> want = k8s::QuantityValue(wanted.size);
  if (!want.ok()) return want.status();
  absl::StatusOr<int64_t> have = k8s::QuantityValue(claim->size);
  if (!have.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("PersistentVolumeClaim ", wanted.name,
                                                   " asks for storage \"", claim->size,
                                                   "\", which is not a quantity"));
  }
  if (*want > *have) {
    drift.kind = ClaimDrift::Kind::kGrow;
  } else if (*want < *have) {
    drift.kind = ClaimDrift::Kind::kShrink;
    drift.message =
        absl::StrCat(wanted.field, ".size is ", wanted.size, " but PersistentVolumeClaim ",
                     wanted.name, " has ", claim->size, ", and a claim cannot shrink; it keeps ",
                     claim->size, " (set the field to at least that)");
  }
  return drift;
}

std::string ClaimGrowPatch(absl::string_view size) {
  return absl::StrCat(R"({"spec":{"resources":{"requests":{"storage":")", size, R"("}}}})");
}

}  // namespace tidepool::cluster

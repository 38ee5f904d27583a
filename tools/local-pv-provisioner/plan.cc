#include "plan.h"

#include <filesystem>
#include <set>

#include "absl/strings/str_cat.h"
#include "k8s/object_json.h"
#include "k8s/resource.h"
#include "rapidjson/document.h"

namespace tidepool::local_pv {
namespace {

using k8s::FindMember;
using k8s::StringMember;

// object.a.b… as a value, or null when a step is missing or not an object.
const rapidjson::Value* Path(const rapidjson::Value& object,
                             std::initializer_list<const char*> keys) {
  const rapidjson::Value* value = &object;
  for (const char* key : keys) {
    value = FindMember(*value, key);
    if (value == nullptr) return nullptr;
  }
  return value;
}

std::string StringAt(const rapidjson::Value& object, std::initializer_list<const char*> keys,
                     const char* last) {
  const rapidjson::Value* parent = Path(object, keys);
  return parent == nullptr ? "" : StringMember(*parent, last);
}

bool Present(const rapidjson::Value* value) { return value != nullptr && !value->IsNull(); }

std::string Annotation(const rapidjson::Value& object, const char* key) {
  return StringAt(object, {"metadata", "annotations"}, key);
}

bool Deleting(const rapidjson::Value& object) {
  return Present(Path(object, {"metadata", "deletionTimestamp"}));
}

std::string Normalised(absl::string_view path) {
  std::string text = std::filesystem::path(std::string(path)).lexically_normal().string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

void SkipClaim(Plan& plan, const std::string& key, std::string reason, bool problem = false) {
  plan.skips.push_back(
      {.kind = "claim", .key = key, .reason = std::move(reason), .problem = problem});
}

void SkipVolume(Plan& plan, const std::string& key, std::string reason, bool problem = false) {
  plan.skips.push_back(
      {.kind = "volume", .key = key, .reason = std::move(reason), .problem = problem});
}

// The key of an object that could not be parsed, as far as it can be told.
std::string KeyOf(absl::string_view json) {
  absl::StatusOr<k8s::ObjectMeta> meta = k8s::ParseObjectMeta(json);
  return meta.ok() ? meta->Key() : "(unreadable)";
}

// Why a claim of ours cannot be provisioned as it is; "" when it can.
std::string ClaimProblem(const Claim& claim) {
  if (claim.uid.empty()) return "no metadata.uid";
  if (claim.storage.empty()) return "no spec.resources.requests.storage";
  if (claim.access_modes.empty()) return "no spec.accessModes";
  if (!claim.volume_mode.empty() && claim.volume_mode != "Filesystem") {
    return absl::StrCat("volumeMode ", claim.volume_mode,
                        " is not supported (hostPath volumes are Filesystem only)");
  }
  if (claim.has_selector) return "spec.selector is not supported by dynamic provisioning";
  if (claim.has_data_source) return "spec.dataSource (cloning, snapshots) is not supported";
  return "";
}

void PlanClaim(const PlanConfig& config, const Claim& claim,
               const std::set<std::string>& volume_names, Plan& plan) {
  if (claim.provisioner != config.provisioner_name) return;  // not ours
  if (!claim.volume_name.empty()) return;                    // bound, or being bound
  const std::string key = claim.Key();
  if (claim.deleting) return SkipClaim(plan, key, "claim is being deleted");
  if (claim.phase != "Pending") {
    return SkipClaim(plan, key, absl::StrCat("phase is \"", claim.phase, "\", not Pending"));
  }
  if (!claim.has_selected_node) {
    return SkipClaim(plan, key,
                     absl::StrCat("waiting for a consumer: no ", kSelectedNodeAnnotation,
                                  " annotation yet (the class must be WaitForFirstConsumer)"));
  }
  if (std::string problem = ClaimProblem(claim); !problem.empty()) {
    return SkipClaim(plan, key, std::move(problem), /*problem=*/true);
  }
  const std::string volume_name = VolumeNameFor(claim);
  if (volume_names.contains(volume_name)) {
    return SkipClaim(plan, key,
                     absl::StrCat("volume ", volume_name, " exists; waiting for it to be bound"));
  }
  const std::string directory = absl::StrCat(Normalised(config.volume_dir), "/", volume_name);
  plan.provisions.push_back({.claim_key = key,
                             .volume_name = volume_name,
                             .directory = directory,
                             .volume_json = BuildVolume(config, claim, directory)});
}

void PlanVolume(const PlanConfig& config, const Volume& volume, Plan& plan) {
  if (volume.provisioned_by != config.provisioner_name) return;        // not ours
  if (volume.phase != "Released" && volume.phase != "Failed") return;  // in use or available
  if (volume.reclaim_policy != "Delete") {
    return SkipVolume(
        plan, volume.name,
        absl::StrCat(volume.phase, " with reclaim policy \"", volume.reclaim_policy, "\": kept"));
  }
  if (volume.host_path.empty()) {
    return SkipVolume(plan, volume.name, "refusing to reclaim: no spec.hostPath.path", true);
  }
  if (!IsBelow(volume.host_path, config.volume_dir)) {
    return SkipVolume(plan, volume.name,
                      absl::StrCat("refusing to reclaim: hostPath \"", volume.host_path,
                                   "\" is not below --volume_dir \"", config.volume_dir, "\""),
                      true);
  }
  plan.reclaims.push_back({.volume_name = volume.name,
                           .volume_uid = volume.uid,
                           .phase = volume.phase,
                           .directory = Normalised(volume.host_path),
                           .volume_deleting = volume.deleting});
}

rapidjson::Value Str(absl::string_view text, rapidjson::Document::AllocatorType& allocator) {
  return rapidjson::Value(text.data(), static_cast<rapidjson::SizeType>(text.size()), allocator);
}

}  // namespace

absl::StatusOr<Claim> ParseClaim(absl::string_view json) {
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(json, "PersistentVolumeClaim");
  if (!doc.ok()) return doc.status();
  Claim claim;
  claim.ns = StringAt(*doc, {"metadata"}, "namespace");
  claim.name = StringAt(*doc, {"metadata"}, "name");
  if (claim.name.empty() || claim.ns.empty()) {
    return absl::InvalidArgumentError("PersistentVolumeClaim has no metadata.name or namespace");
  }
  claim.uid = StringAt(*doc, {"metadata"}, "uid");
  claim.deleting = Deleting(*doc);
  claim.provisioner = Annotation(*doc, kStorageProvisionerAnnotation);
  if (claim.provisioner.empty()) {
    claim.provisioner = Annotation(*doc, kBetaStorageProvisionerAnnotation);
  }
  claim.has_selected_node = !Annotation(*doc, kSelectedNodeAnnotation).empty();
  claim.phase = StringAt(*doc, {"status"}, "phase");
  claim.volume_name = StringAt(*doc, {"spec"}, "volumeName");
  claim.storage_class = StringAt(*doc, {"spec"}, "storageClassName");
  claim.storage = StringAt(*doc, {"spec", "resources", "requests"}, "storage");
  claim.volume_mode = StringAt(*doc, {"spec"}, "volumeMode");
  if (const rapidjson::Value* modes = Path(*doc, {"spec", "accessModes"});
      modes != nullptr && modes->IsArray()) {
    for (const rapidjson::Value& mode : modes->GetArray()) {
      if (mode.IsString())
        claim.access_modes.emplace_back(mode.GetString(), mode.GetStringLength());
    }
  }
  claim.has_selector = Present(Path(*doc, {"spec", "selector"}));
  claim.has_data_source =
      Present(Path(*doc, {"spec", "dataSource"})) || Present(Path(*doc, {"spec", "dataSourceRef"}));
  return claim;
}

absl::StatusOr<Volume> ParseVolume(absl::string_view json) {
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(json, "PersistentVolume");
  if (!doc.ok()) return doc.status();
  Volume volume;
  volume.name = StringAt(*doc, {"metadata"}, "name");
  if (volume.name.empty())
    return absl::InvalidArgumentError("PersistentVolume has no metadata.name");
  volume.uid = StringAt(*doc, {"metadata"}, "uid");
  volume.deleting = Deleting(*doc);
  volume.provisioned_by = Annotation(*doc, kProvisionedByAnnotation);
  volume.phase = StringAt(*doc, {"status"}, "phase");
  volume.reclaim_policy = StringAt(*doc, {"spec"}, "persistentVolumeReclaimPolicy");
  volume.host_path = StringAt(*doc, {"spec", "hostPath"}, "path");
  return volume;
}

std::string VolumeNameFor(const Claim& claim) { return absl::StrCat("pvc-", claim.uid); }

std::string BuildVolume(const PlanConfig& config, const Claim& claim, absl::string_view directory) {
  rapidjson::Document pv(rapidjson::kObjectType);
  auto& a = pv.GetAllocator();
  pv.AddMember("apiVersion", "v1", a);
  pv.AddMember("kind", "PersistentVolume", a);

  rapidjson::Value annotations(rapidjson::kObjectType);
  annotations.AddMember(rapidjson::StringRef(kProvisionedByAnnotation),
                        Str(config.provisioner_name, a), a);
  rapidjson::Value metadata(rapidjson::kObjectType);
  metadata.AddMember("name", Str(VolumeNameFor(claim), a), a);
  metadata.AddMember("annotations", annotations, a);
  pv.AddMember("metadata", metadata, a);

  rapidjson::Value spec(rapidjson::kObjectType);
  rapidjson::Value capacity(rapidjson::kObjectType);
  capacity.AddMember("storage", Str(claim.storage, a), a);
  spec.AddMember("capacity", capacity, a);
  // Every "node" of the test environment is this one machine, so the directory is the
  // same from all of them: no nodeAffinity, and ReadWriteMany (or ReadWriteOncePod) is
  // honoured as asked — pods on any node share the one directory.
  rapidjson::Value modes(rapidjson::kArrayType);
  for (const std::string& mode : claim.access_modes) modes.PushBack(Str(mode, a), a);
  spec.AddMember("accessModes", modes, a);
  spec.AddMember("volumeMode", "Filesystem", a);
  spec.AddMember("persistentVolumeReclaimPolicy", "Delete", a);
  if (!claim.storage_class.empty()) {
    spec.AddMember("storageClassName", Str(claim.storage_class, a), a);
  }
  rapidjson::Value host_path(rapidjson::kObjectType);
  host_path.AddMember("path", Str(directory, a), a);
  host_path.AddMember("type", "DirectoryOrCreate", a);
  spec.AddMember("hostPath", host_path, a);
  // Pre-bound to the claim, as dynamic provisioners do: the PV controller binds exactly it.
  rapidjson::Value claim_ref(rapidjson::kObjectType);
  claim_ref.AddMember("apiVersion", "v1", a);
  claim_ref.AddMember("kind", "PersistentVolumeClaim", a);
  claim_ref.AddMember("namespace", Str(claim.ns, a), a);
  claim_ref.AddMember("name", Str(claim.name, a), a);
  claim_ref.AddMember("uid", Str(claim.uid, a), a);
  spec.AddMember("claimRef", claim_ref, a);
  pv.AddMember("spec", spec, a);
  return k8s::ToJson(pv);
}

bool IsBelow(absl::string_view path, absl::string_view base) {
  const std::filesystem::path p(Normalised(path));
  const std::filesystem::path b(Normalised(base));
  if (!p.is_absolute() || !b.is_absolute()) return false;
  const std::filesystem::path relative = p.lexically_relative(b);
  if (relative.empty() || relative == ".") return false;
  return *relative.begin() != "..";
}

Plan PlanActions(const PlanConfig& config, const std::vector<std::string>& claims,
                 const std::vector<std::string>& volumes) {
  Plan plan;
  std::set<std::string> volume_names;
  for (const std::string& json : volumes) {
    absl::StatusOr<Volume> volume = ParseVolume(json);
    if (!volume.ok()) {
      SkipVolume(plan, KeyOf(json), std::string(volume.status().message()), true);
      continue;
    }
    volume_names.insert(volume->name);
    PlanVolume(config, *volume, plan);
  }
  for (const std::string& json : claims) {
    absl::StatusOr<Claim> claim = ParseClaim(json);
    if (!claim.ok()) {
      SkipClaim(plan, KeyOf(json), std::string(claim.status().message()), true);
      continue;
    }
    PlanClaim(config, *claim, volume_names, plan);
  }
  return plan;
}

}  // namespace tidepool::local_pv

#pragma once

// What the local-PV provisioner should do, decided from the cached PersistentVolumeClaims
// and PersistentVolumes only: which claims get a new hostPath PV (and a directory), which
// released PVs of ours are reclaimed (directory removed, PV deleted), and why other
// objects of ours are left alone. Pure: no API calls and no file system, so every rule is
// unit tested.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tidepool::local_pv {

inline constexpr char kDefaultProvisionerName[] = "tidepool.dev/local-pv";
// Set on a claim by the PV controller: which provisioner is to provision it.
inline constexpr char kStorageProvisionerAnnotation[] = "volume.kubernetes.io/storage-provisioner";
inline constexpr char kBetaStorageProvisionerAnnotation[] =
    "volume.beta.kubernetes.io/storage-provisioner";
// Set on a claim by the scheduler (WaitForFirstConsumer): the node of its first pod.
inline constexpr char kSelectedNodeAnnotation[] = "volume.kubernetes.io/selected-node";
// Set on the PVs we create: who may reclaim them.
inline constexpr char kProvisionedByAnnotation[] = "pv.kubernetes.io/provisioned-by";

struct PlanConfig {
  std::string provisioner_name = kDefaultProvisionerName;
  std::string volume_dir;  // absolute; every volume's directory is <volume_dir>/<PV name>
};

// The fields of a PersistentVolumeClaim the decision reads.
struct Claim {
  std::string ns;
  std::string name;
  std::string uid;
  bool deleting = false;    // deletionTimestamp set
  std::string provisioner;  // the storage-provisioner annotation (GA, else beta)
  bool has_selected_node = false;
  std::string phase;          // status.phase
  std::string volume_name;    // spec.volumeName
  std::string storage_class;  // spec.storageClassName
  std::string storage;        // spec.resources.requests.storage
  std::vector<std::string> access_modes;
  std::string volume_mode;       // spec.volumeMode ("" means Filesystem)
  bool has_selector = false;     // spec.selector
  bool has_data_source = false;  // spec.dataSource or spec.dataSourceRef

  std::string Key() const { return ns + "/" + name; }
};
// InvalidArgument when `json` is not a JSON object with metadata.name and namespace.
// Other missing fields stay empty (the plan says why that matters, when it does).
absl::StatusOr<Claim> ParseClaim(absl::string_view json);

// The fields of a PersistentVolume the decision reads.
struct Volume {
  std::string name;
  std::string uid;
  bool deleting = false;       // deletionTimestamp set
  std::string provisioned_by;  // the pv.kubernetes.io/provisioned-by annotation
  std::string phase;           // status.phase
  std::string reclaim_policy;  // spec.persistentVolumeReclaimPolicy
  std::string host_path;       // spec.hostPath.path
};
// InvalidArgument when `json` is not a JSON object with metadata.name.
absl::StatusOr<Volume> ParseVolume(absl::string_view json);

// "pvc-<claim uid>", as the in-tree provisioners name their PVs.
std::string VolumeNameFor(const Claim& claim);
// The PersistentVolume (JSON) that satisfies `claim`, its data in `directory`.
std::string BuildVolume(const PlanConfig& config, const Claim& claim, absl::string_view directory);
// Whether `path` lies strictly below the directory `base` (both absolute), comparing
// lexically normalised paths: "/v/a" is below "/v", "/v", "/v/../x" and "/vx/a" are not.
bool IsBelow(absl::string_view path, absl::string_view base);

struct Provision {
  std::string claim_key;    // namespace/name
  std::string volume_name;  // pvc-<uid>
  std::string directory;    // <volume_dir>/<volume_name>
  std::string volume_json;  // the PV to create
};

struct Reclaim {
  std::string volume_name;
  std::string volume_uid;  // delete only this incarnation
  std::string phase;       // Released or Failed
  std::string directory;   // spec.hostPath.path, checked to be below volume_dir
  // The PV is already being deleted (by us in an earlier pass, or by someone else): only
  // its directory, if still there, is left to remove.
  bool volume_deleting = false;
};

// An object of ours (or one that could not be read) left alone this pass, and why.
struct Skip {
  std::string kind;  // "claim" or "volume"
  std::string key;
  std::string reason;
  bool problem = false;  // needs a person (bad object, refused path), not just waiting
};

struct Plan {
  std::vector<Provision> provisions;
  std::vector<Reclaim> reclaims;
  std::vector<Skip> skips;
};

// Claims and volumes as JSON text (the informers' caches). Objects that are not ours are
// ignored; objects of ours in a normal state (bound, available) too.
Plan PlanActions(const PlanConfig& config, const std::vector<std::string>& claims,
                 const std::vector<std::string>& volumes);

}  // namespace tidepool::local_pv

#pragma once

// Pure builders of a cluster's slurmctld objects (controller_sync.h applies them):
//   "<cluster>-controller"        headless Service (publishes not-ready pods, so the
//                                 primary and backup find each other while starting)
//   "<cluster>-controller"        StatefulSet, replicas 1 (primary) or 2 (+ backup), pods
//                                 "<cluster>-controller-<i>" = SlurmctldHost i
//   "<cluster>-controller"        PodDisruptionBudget, maxUnavailable 1
//   "<cluster>-compute"           headless Service and PodDisruptionBudget of the slurmd
//                                 pods (the NodeSets' pods)
//   "<cluster>-controller-state"  PVC with StateSaveLocation, shared by both replicas
//                                 (ReadWriteMany when 2); not owned, so deleting the
//                                 cluster keeps every job's saved state
// The slurmctld pod mounts the rendered ConfigMap, the munge and JWT key Secrets and the
// state PVC; the image's entrypoint (images/slurm/entrypoint) links the files into
// /etc/slurm, installs the keys for their daemons and hands the state dir to SlurmUser.

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "claim_drift.h"
#include "tidepool/v1/slurm_cluster.pb.h"

namespace tidepool::cluster {

// Where the slurmctld pod has its state, and the port it serves.
inline constexpr char kStateSaveMountPath[] = "/var/spool/slurmctld";
inline constexpr int kSlurmctldPort = 6817;
inline constexpr int kSlurmdPort = 6818;
inline constexpr char kDefaultStateSaveSize[] = "10Gi";

// What the slurmctld objects are made from.
struct ControllerInputs {
  const v1::SlurmCluster* cluster = nullptr;
  std::string munge_key_secret;
  std::string jwt_key_secret;
  std::string cluster_domain = "cluster.local";  // for the compute pods' search domain
};

// spec.controller.replicas (default 1); InvalidArgument naming the field unless 1 or 2.
absl::StatusOr<int> ControllerReplicas(const v1::SlurmCluster& cluster);
// Everything the builders need from the spec, checked: replicas, images.controller,
// stateSave.size; the error names the field and says what is accepted.
absl::Status ValidateControllerSpec(const v1::SlurmCluster& cluster);

// Server-side apply bodies (JSON). Call only with a spec ValidateControllerSpec accepts.
std::string ControllerServiceBody(const v1::SlurmCluster& cluster);
std::string ControllerDisruptionBudgetBody(const v1::SlurmCluster& cluster);
std::string ControllerStatefulSetBody(const ControllerInputs& inputs);
// "<cluster>-compute": headless, over the cluster's slurmd pods (their subdomain), so
// slurmctld reaches a node by its bare name through its DNS search path.
std::string ComputeServiceBody(const v1::SlurmCluster& cluster);
// "<cluster>-compute": a PodDisruptionBudget over the cluster's slurmd pods that refuses
// every eviction of a Ready one (minAvailable past any count) and allows it once the pod is not
// Ready (unhealthyPodEvictionPolicy AlwaysAllow): with the SlurmNodeInUse readiness gate,
// `kubectl drain` evicts a slurmd pod only after its Slurm node is drained and idle.
std::string ComputeDisruptionBudgetBody(const v1::SlurmCluster& cluster);
// A create body. The claim is made once; later it only grows to a larger
// spec.controller.stateSave.size (claim_resize.h): its class and access modes never change.
std::string ControllerStateClaimBody(const v1::SlurmCluster& cluster);
// What spec.controller.stateSave asks of the state claim.
WantedClaim WantedStateClaim(const v1::SlurmCluster& cluster);

// An existing state claim checked against the replicas asked for: two slurmctld share it,
// which needs ReadWriteMany. FailedPrecondition says what to do.
absl::Status CheckStateClaimFits(absl::string_view claim_json, int replicas);

}  // namespace tidepool::cluster

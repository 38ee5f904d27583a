#include "controller_flags.h"

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"

ABSL_FLAG(std::string, kubeconfig, "",
          "kubeconfig file of the API server; empty: the pod's service account (in-cluster)");
ABSL_FLAG(double, kube_api_qps, 20, "Client-side rate limit of API requests per second (> 0)");
ABSL_FLAG(int32_t, kube_api_burst, 40, "Requests allowed at once above --kube_api_qps (>= 1)");
ABSL_FLAG(std::string, syncer_address, "127.0.0.1:50062",
          "host:port of slurm-syncer's gRPC server; every drain and Slurm read goes through it");
ABSL_FLAG(bool, leader_elect, true,
          "Reconcile only while holding the Lease, so two replicas can run");
ABSL_FLAG(std::string, leader_election_namespace, "tidepool-system", "Namespace of the Lease");
ABSL_FLAG(std::string, leader_election_id, "nodeset-controller", "Name of the Lease");
ABSL_FLAG(std::string, watch_namespace, "",
          "Reconcile NodeSets of this namespace only; empty: every namespace");
ABSL_FLAG(int32_t, workers, 2,
          "NodeSets synced at once (1-64); a NodeSet is never synced twice "
          "at once");
ABSL_FLAG(absl::Duration, wait_requeue, absl::Seconds(5),
          "How soon to look again at a NodeSet whose pod deletion waits for Slurm (100ms-5m)");

namespace tidepool::nodeset {

absl::StatusOr<ControllerOptions> ValidateControllerOptions(ControllerOptions options) {
  if (!(options.qps > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--kube_api_qps=", options.qps, " must be greater than 0"));
  }
  if (options.burst < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--kube_api_burst=", options.burst, " must be at least 1"));
  }
  if (options.workers < 1 || options.workers > 64) {
    return absl::InvalidArgumentError(
        absl::StrCat("--workers=", options.workers, " is out of range; use 1 to 64"));
  }
  if (options.leader_elect && (options.lease_namespace.empty() || options.lease_name.empty())) {
    return absl::InvalidArgumentError(
        "--leader_election_namespace and --leader_election_id must be set with --leader_elect");
  }
  if (options.wait_requeue < absl::Milliseconds(100) || options.wait_requeue > absl::Minutes(5)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--wait_requeue=", absl::FormatDuration(options.wait_requeue),
                     " is out of range; use 100ms to 5m"));
  }
  return options;
}

ControllerOptions ReadControllerFlags() {
  return {.kubeconfig = absl::GetFlag(FLAGS_kubeconfig),
          .qps = absl::GetFlag(FLAGS_kube_api_qps),
          .burst = absl::GetFlag(FLAGS_kube_api_burst),
          .syncer_address = absl::GetFlag(FLAGS_syncer_address),
          .leader_elect = absl::GetFlag(FLAGS_leader_elect),
          .lease_namespace = absl::GetFlag(FLAGS_leader_election_namespace),
          .lease_name = absl::GetFlag(FLAGS_leader_election_id),
          .watch_namespace = absl::GetFlag(FLAGS_watch_namespace),
          .workers = absl::GetFlag(FLAGS_workers),
          .wait_requeue = absl::GetFlag(FLAGS_wait_requeue)};
}

}  // namespace tidepool::nodeset

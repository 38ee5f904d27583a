#include "flags.h"

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "tidepool/cluster_ref.h"

ABSL_FLAG(std::string, slurm_cluster, "",
          "<namespace>/<name> of the SlurmCluster whose pods this scheduler places: pods whose "
          "spec.schedulerName is its spec.podScheduler.schedulerName (default tidepool), while "
          "spec.podScheduler.enabled; required");
ABSL_FLAG(std::string, syncer_address, "127.0.0.1:50062",
          "host:port of slurm-syncer's gRPC server; every job is submitted, watched and "
          "cancelled through it");
ABSL_FLAG(std::string, leader_election_id, "pod-scheduler", "Name of the Lease");
ABSL_FLAG(int32_t, workers, 16, "Pods synced at once (1-64); a pod is never synced twice at once");

namespace tidepool::podsched {

absl::StatusOr<SchedulerOptions> ValidateSchedulerOptions(const std::string& slurm_cluster,
                                                          SchedulerOptions options) {
  absl::StatusOr<api::ClusterRef> cluster = api::ParseClusterRef(slurm_cluster);
  if (!cluster.ok()) return cluster.status();
  options.cluster_namespace = cluster->namespace_name;
  options.cluster_name = cluster->name;
  if (options.syncer_address.empty()) {
    return absl::InvalidArgumentError("--syncer_address is empty; give slurm-syncer's host:port");
  }
  if (absl::Status s = k8s::ValidateClientFlags(options.client); !s.ok()) return s;
  if (absl::Status s = k8s::ValidateLeaderElectionFlags(options.leader_election); !s.ok()) {
    return s;
  }
  if (options.leader_election.enabled && options.lease_name.empty()) {
    return absl::InvalidArgumentError("--leader_election_id is empty");
  }
  if (options.workers < 1 || options.workers > 64) {
    return absl::InvalidArgumentError(
        absl::StrCat("--workers=", options.workers, " is out of range; use 1 to 64"));
  }
  return options;
}

absl::StatusOr<SchedulerOptions> ReadSchedulerFlags() {
  return ValidateSchedulerOptions(absl::GetFlag(FLAGS_slurm_cluster),
                                  {.client = k8s::ReadClientFlags(),
                                   .syncer_address = absl::GetFlag(FLAGS_syncer_address),
                                   .leader_election = k8s::ReadLeaderElectionFlags(),
                                   .lease_name = absl::GetFlag(FLAGS_leader_election_id),
                                   .workers = absl::GetFlag(FLAGS_workers)});
}

}  // namespace tidepool::podsched

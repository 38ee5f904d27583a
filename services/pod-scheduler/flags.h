#pragma once

// pod-scheduler's own flags (the common ones are in common/service_flags.h, the Kubernetes
// client and leader-election ones in k8s/client_flags.h), validated into the options the
// scheduler is built from.

#include <cstdint>
#include <string>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "k8s/client_flags.h"

ABSL_DECLARE_FLAG(std::string, slurm_cluster);
ABSL_DECLARE_FLAG(std::string, syncer_address);
ABSL_DECLARE_FLAG(std::string, leader_election_id);
ABSL_DECLARE_FLAG(int32_t, workers);

namespace tidepool::podsched {

struct SchedulerOptions {
  k8s::ClientFlags client;
  std::string cluster_namespace;  // --slurm_cluster=<namespace>/<name>
  std::string cluster_name;
  std::string syncer_address;
  k8s::LeaderElectionFlags leader_election;
  std::string lease_name;
  int workers = 16;
};

// Raw flag text in, options out; the error names the flag and says what is accepted.
absl::StatusOr<SchedulerOptions> ValidateSchedulerOptions(const std::string& slurm_cluster,
                                                          SchedulerOptions options);
absl::StatusOr<SchedulerOptions> ReadSchedulerFlags();

}  // namespace tidepool::podsched

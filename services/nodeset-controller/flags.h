#pragma once

// nodeset-controller's own flags (the common ones are in common/service_flags.h, the
// Kubernetes client and leader-election ones in k8s/client_flags.h), validated into the
// options the controller is built from.

#include <cstdint>
#include <string>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "k8s/client_flags.h"
#include "tidepool/served_cluster.h"

ABSL_DECLARE_FLAG(std::string, syncer_address);
ABSL_DECLARE_FLAG(std::string, leader_election_id);
ABSL_DECLARE_FLAG(std::string, watch_namespace);
ABSL_DECLARE_FLAG(std::string, slurm_cluster);
ABSL_DECLARE_FLAG(int32_t, workers);
ABSL_DECLARE_FLAG(absl::Duration, wait_requeue);
ABSL_DECLARE_FLAG(int32_t, max_pod_creates_per_sync);
ABSL_DECLARE_FLAG(std::string, cluster_domain);
ABSL_DECLARE_FLAG(std::string, syncer_lease_name);
ABSL_DECLARE_FLAG(std::string, syncer_lease_namespace);

namespace tidepool::nodeset {

struct ControllerOptions {
  k8s::ClientFlags client;
  std::string syncer_address;
  k8s::LeaderElectionFlags leader_election;
  std::string lease_name;       // --leader_election_id
  std::string watch_namespace;  // "" = all namespaces (validation: the served cluster's)
  std::string slurm_cluster;    // --slurm_cluster, "" = every cluster
  api::ServedCluster served;    // filled in by validation
  int workers = 2;
  absl::Duration wait_requeue;
  int max_pod_creates_per_sync = 100;
  std::string cluster_domain;  // the Kubernetes cluster's DNS domain, "cluster.local"
  // slurm-syncer's Lease ("" = no gate guard) and its namespace (validation fills in
  // leader_election.lease_namespace when empty).
  std::string syncer_lease_name = "slurm-syncer";
  std::string syncer_lease_namespace;
};

// The error names the flag and says what is accepted.
absl::StatusOr<ControllerOptions> ValidateControllerOptions(ControllerOptions options);
ControllerOptions ReadControllerFlags();

}  // namespace tidepool::nodeset

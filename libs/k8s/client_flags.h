#pragma once

// The flags every service that talks to the API server shares, defined once: where the
// API server is (--kubeconfig), how fast to call it (--kube_api_qps, --kube_api_burst),
// and leader election (--leader_elect, --leader_election_namespace). Read into plain
// structs and validated apart from the flags, so tests need no flag globals.

#include <cstdint>
#include <string>

#include "absl/flags/declare.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "k8s/config.h"

ABSL_DECLARE_FLAG(std::string, kubeconfig);
ABSL_DECLARE_FLAG(double, kube_api_qps);
ABSL_DECLARE_FLAG(int32_t, kube_api_burst);
ABSL_DECLARE_FLAG(bool, leader_elect);
ABSL_DECLARE_FLAG(std::string, leader_election_namespace);

namespace tidepool::k8s {

struct ClientFlags {
  std::string kubeconfig;  // "" = $KUBECONFIG, in-cluster, ~/.kube/config
  double qps = 20;
  int burst = 40;

  bool operator==(const ClientFlags&) const = default;
};

struct LeaderElectionFlags {
  bool enabled = true;
  std::string lease_namespace = "tidepool-system";

  bool operator==(const LeaderElectionFlags&) const = default;
};

ClientFlags ReadClientFlags();
LeaderElectionFlags ReadLeaderElectionFlags();

// InvalidArgument naming the flag: --kube_api_qps must be > 0, --kube_api_burst >= 1.
absl::Status ValidateClientFlags(const ClientFlags& flags);
// InvalidArgument when election is on and --leader_election_namespace is empty.
absl::Status ValidateLeaderElectionFlags(const LeaderElectionFlags& flags);

// The client configuration: the --kubeconfig file when set, else DefaultConfig(), with
// the flags' rate limit and `user_agent`. An error keeps its code and says where the
// configuration came from ("--kubeconfig /x: ..." or "Kubernetes client configuration
// ($KUBECONFIG, in-cluster, ~/.kube/config): ..."). Invalid flags are InvalidArgument.
absl::StatusOr<ClientConfig> ClientConfigFromFlags(const ClientFlags& flags,
                                                   std::string user_agent);

}  // namespace tidepool::k8s

#include "k8s/client_flags.h"

#include <utility>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"

ABSL_FLAG(std::string, kubeconfig, "",
          "kubeconfig file; empty: $KUBECONFIG, the pod's service account (in-cluster), "
          "~/.kube/config");
ABSL_FLAG(double, kube_api_qps, 20, "Client-side rate limit of API requests per second (> 0)");
ABSL_FLAG(int32_t, kube_api_burst, 40, "Requests allowed at once above --kube_api_qps (>= 1)");
ABSL_FLAG(bool, leader_elect, true,
          "Act only while holding this service's Lease, so two replicas can run safely");
ABSL_FLAG(std::string, leader_election_namespace, "tidepool-system",
          "Namespace of this service's Lease");

namespace tidepool::k8s {

ClientFlags ReadClientFlags() {
  return {.kubeconfig = absl::GetFlag(FLAGS_kubeconfig),
          .qps = absl::GetFlag(FLAGS_kube_api_qps),
          .burst = absl::GetFlag(FLAGS_kube_api_burst)};
}

LeaderElectionFlags ReadLeaderElectionFlags() {
  return {.enabled = absl::GetFlag(FLAGS_leader_elect),
          .lease_namespace = absl::GetFlag(FLAGS_leader_election_namespace)};
}

absl::Status ValidateClientFlags(const ClientFlags& flags) {
  if (!(flags.qps > 0)) {  // NaN too
    return absl::InvalidArgumentError(
        absl::StrCat("--kube_api_qps=", flags.qps, " must be greater than 0"));
  }
  if (flags.burst < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--kube_api_burst=", flags.burst, " must be at least 1"));
  }
  return absl::OkStatus();
}

absl::Status ValidateLeaderElectionFlags(const LeaderElectionFlags& flags) {
  if (flags.enabled && flags.lease_namespace.empty()) {
    return absl::InvalidArgumentError("--leader_election_namespace is empty");
  }
  return absl::OkStatus();
}

absl::StatusOr<ClientConfig> ClientConfigFromFlags(const ClientFlags& flags,
                                                   std::string user_agent) {
  if (absl::Status s = ValidateClientFlags(flags); !s.ok()) return s;
  absl::StatusOr<ClientConfig> config =
      flags.kubeconfig.empty() ? DefaultConfig() : LoadKubeconfig(flags.kubeconfig);
  if (!config.ok()) {
    const std::string source =
        flags.kubeconfig.empty()
            ? "Kubernetes client configuration ($KUBECONFIG, in-cluster, ~/.kube/config)"
            : absl::StrCat("--kubeconfig ", flags.kubeconfig);
    return absl::Status(config.status().code(),
                        absl::StrCat(source, ": ", config.status().message()));
  }
  config->qps = flags.qps;
  config->burst = flags.burst;
  config->user_agent = std::move(user_agent);
  return config;
}

}  // namespace tidepool::k8s

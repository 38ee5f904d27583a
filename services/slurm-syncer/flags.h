#pragma once

// slurm-syncer's own flags (the common ones are in common/service_flags.h, the
// Kubernetes client and leader-election ones in k8s/client_flags.h), validated into the
// options the syncer is built from.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "k8s/client_flags.h"
#include "node_poller.h"
#include "slurm/rest/client.h"
#include "tidepool/cluster_ref.h"
#include "two_way_sync.h"

ABSL_DECLARE_FLAG(std::string, slurm_rest_url);
ABSL_DECLARE_FLAG(std::string, slurm_rest_socket);
ABSL_DECLARE_FLAG(std::string, slurm_jwt_key_file);
ABSL_DECLARE_FLAG(std::string, slurm_jwt_user);
ABSL_DECLARE_FLAG(std::string, slurm_token_file);
ABSL_DECLARE_FLAG(std::string, slurm_cluster);
ABSL_DECLARE_FLAG(std::string, slurm_rest_address_from);
ABSL_DECLARE_FLAG(absl::Duration, slurm_jwt_key_refresh_interval);
ABSL_DECLARE_FLAG(std::string, slurm_rest_version);
ABSL_DECLARE_FLAG(absl::Duration, slurm_rest_timeout);
ABSL_DECLARE_FLAG(absl::Duration, node_poll_interval);
ABSL_DECLARE_FLAG(absl::Duration, full_resync_interval);
ABSL_DECLARE_FLAG(absl::Duration, job_poll_interval);
ABSL_DECLARE_FLAG(absl::Duration, slurm_metrics_interval);
ABSL_DECLARE_FLAG(bool, sync_kubernetes);
ABSL_DECLARE_FLAG(std::string, pod_namespace);
ABSL_DECLARE_FLAG(std::vector<std::string>, drain_node_conditions);

namespace tidepool::syncer {

struct RawSyncerFlags {
  std::string rest_url;
  std::string rest_socket;
  std::string jwt_key_file;
  std::string jwt_user;
  std::string token_file;
  std::string cluster;  // <namespace>/<name>
  std::string rest_address_from = "dns";
  absl::Duration jwt_key_refresh_interval = absl::Minutes(2);
  std::string rest_version;
  absl::Duration rest_timeout;
  absl::Duration node_poll_interval;
  absl::Duration full_resync_interval;
  absl::Duration job_poll_interval;
  absl::Duration slurm_metrics_interval = absl::Seconds(15);  // zero: off
  bool sync_kubernetes = true;
  k8s::ClientFlags kube_client;
  std::string pod_namespace;
  std::vector<std::string> drain_node_conditions;
  std::vector<std::string> force_callers;
  k8s::LeaderElectionFlags leader_election;
};

// Where the slurmrestd of a SlurmCluster is reached (--slurm_rest_address_from).
enum class RestAddressFrom {
  kDns,      // http://<name>-restapi.<namespace>.svc:6820
  kService,  // http://<ClusterIP of that Service>:6820, read from the API
  kUrl,      // --slurm_rest_url (tests, or a slurmrestd reached some other way)
};

// --slurm_cluster: the key and the address come from the cluster's objects.
struct ClusterOptions {
  api::ClusterRef ref;
  RestAddressFrom address_from = RestAddressFrom::kDns;
  std::string jwt_user;
  absl::Duration key_refresh_interval;
};

struct SyncerOptions {
  // Auth included, except with `cluster`: then the authenticator is built once there is
  // a Kubernetes client, and base_url is empty with RestAddressFrom::kService.
  slurm::rest::ClientOptions client;
  NodePollerOptions node_polling;
  absl::Duration job_poll_interval;
  absl::Duration slurm_metrics_interval;  // zero: off
  // Who may set UpdateNode's force (identities, or "*"); empty: nobody.
  std::vector<std::string> force_callers;
  // The two-way sync with Kubernetes; unset when --sync_kubernetes=false.
  std::optional<TwoWaySyncOptions> two_way;
  std::optional<ClusterOptions> cluster;
  k8s::ClientFlags kube_client;  // used with two_way or cluster only
};

// Checks the values and builds the authenticator (reading the JWT key file now; with
// --slurm_cluster that is left to setup): the error names the flag and says what to do.
absl::StatusOr<SyncerOptions> BuildSyncerOptions(const RawSyncerFlags& raw);

RawSyncerFlags ReadSyncerFlags();

}  // namespace tidepool::syncer

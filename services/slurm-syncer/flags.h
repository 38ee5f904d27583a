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
#include "two_way_sync.h"

ABSL_DECLARE_FLAG(std::string, slurm_rest_url);
ABSL_DECLARE_FLAG(std::string, slurm_rest_socket);
ABSL_DECLARE_FLAG(std::string, slurm_jwt_key_file);
ABSL_DECLARE_FLAG(std::string, slurm_jwt_user);
ABSL_DECLARE_FLAG(std::string, slurm_token_file);
ABSL_DECLARE_FLAG(std::string, slurm_rest_version);
ABSL_DECLARE_FLAG(absl::Duration, slurm_rest_timeout);
ABSL_DECLARE_FLAG(absl::Duration, node_poll_interval);
ABSL_DECLARE_FLAG(absl::Duration, full_resync_interval);
ABSL_DECLARE_FLAG(absl::Duration, job_poll_interval);
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
  std::string rest_version;
  absl::Duration rest_timeout;
  absl::Duration node_poll_interval;
  absl::Duration full_resync_interval;
  absl::Duration job_poll_interval;
  bool sync_kubernetes = true;
  k8s::ClientFlags kube_client;
  std::string pod_namespace;
  std::vector<std::string> drain_node_conditions;
  k8s::LeaderElectionFlags leader_election;
};

struct SyncerOptions {
  slurm::rest::ClientOptions client;  // auth included
  NodePollerOptions node_polling;
  absl::Duration job_poll_interval;
  // The two-way sync with Kubernetes; unset when --sync_kubernetes=false.
  std::optional<TwoWaySyncOptions> two_way;
  k8s::ClientFlags kube_client;  // used with two_way only
};

// Checks the values and builds the authenticator (reading the JWT key file now): the
// error names the flag and says what to do.
absl::StatusOr<SyncerOptions> BuildSyncerOptions(const RawSyncerFlags& raw);

RawSyncerFlags ReadSyncerFlags();

}  // namespace tidepool::syncer

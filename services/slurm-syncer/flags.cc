#include "flags.h"

#include <memory>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/one_of.h"
#include "restapi_url.h"
#include "slurm/rest/auth.h"
#include "tidepool/contract.h"

ABSL_FLAG(std::string, slurm_rest_url, "http://127.0.0.1:6820",
          "slurmrestd base URL (http:// or https://); the host is ignored with "
          "--slurm_rest_socket; ignored with --slurm_cluster unless "
          "--slurm_rest_address_from=url");
ABSL_FLAG(std::string, slurm_rest_socket, "",
          "UNIX socket of slurmrestd (rest_auth/local: no token needed)");
ABSL_FLAG(std::string, slurm_jwt_key_file, "",
          "HS256 key file (AuthAltParameters jwt_key) to mint short-lived JWTs from");
ABSL_FLAG(std::string, slurm_jwt_user, "slurm",
          "Slurm user the minted JWTs name (sun claim); must be SlurmUser or root to drain "
          "nodes and reconfigure");
ABSL_FLAG(std::string, slurm_token_file, "",
          "File holding a JWT for slurmrestd, re-read when it changes (instead of a key)");
ABSL_FLAG(std::string, slurm_cluster, "",
          "<namespace>/<name> of the SlurmCluster served: slurmrestd is its Service "
          "<name>-restapi (see --slurm_rest_address_from) and tokens are minted from the JWT "
          "key in its Secret (spec.auth.jwtKeySecret, else <name>-jwt-key), read through the "
          "Kubernetes API; instead of --slurm_jwt_key_file / --slurm_token_file");
ABSL_FLAG(std::string, slurm_rest_address_from, "dns",
          "With --slurm_cluster, how slurmrestd is reached: dns "
          "(https://<name>-restapi.<namespace>.svc:6820, in the cluster), service "
          "(the same, connected at the spec.clusterIP of that Service, for a process outside "
          "the cluster network that reaches ClusterIPs), both trusting the CA of the Secret "
          "<name>-restapi-tls, or url (--slurm_rest_url, trusting the system's CAs)");
ABSL_FLAG(absl::Duration, slurm_jwt_key_refresh_interval, absl::Minutes(2),
          "With --slurm_cluster, how often the JWT key Secret is read again to pick up a "
          "rotated key (1s-1h); it is also read again soon after slurmrestd refuses a token");
ABSL_FLAG(std::string, slurm_rest_version, "",
          "data_parser version to use (v0.0.42-v0.0.45); empty: the newest both sides serve");
ABSL_FLAG(absl::Duration, slurm_rest_timeout, absl::Seconds(10),
          "Timeout of one slurmrestd request (100ms-5m)");
ABSL_FLAG(absl::Duration, node_poll_interval, absl::Seconds(1),
          "How often to ask slurmrestd which nodes changed (100ms-5m)");
ABSL_FLAG(absl::Duration, full_resync_interval, absl::Minutes(5),
          "How often to list every node regardless of update_time (10s-24h)");
ABSL_FLAG(absl::Duration, job_poll_interval, absl::Seconds(1),
          "How often to list jobs while WatchJobs has watchers (100ms-5m)");

ABSL_FLAG(absl::Duration, slurm_metrics_interval, absl::Seconds(15),
          "How often Slurm's jobs, nodes and diag are read for the tidepool_slurm_* metrics "
          "(1s-1h); 0 turns those metrics off");

ABSL_FLAG(bool, sync_kubernetes, true,
          "Sync slurmd pods and their Nodes with Slurm (drains from Kubernetes causes, Slurm "
          "state onto pods and Nodes); false serves only the Slurm API");
ABSL_FLAG(std::string, pod_namespace, "",
          "Namespace of slurmd pods to sync; empty: all, or --slurm_cluster's namespace");
ABSL_FLAG(std::vector<std::string>, drain_node_conditions, {},
          "Node condition types that drain the node's Slurm node while True (comma-separated)");

ABSL_FLAG(std::vector<std::string>, force_callers, {},
          "Callers allowed to force a drain or undrain over a reason the syncer does not own "
          "(UpdateNode force): their certificate identities, comma-separated; '*' allows every "
          "caller, plaintext ones too. Empty (the default): nobody");

namespace tidepool::syncer {
namespace {

absl::Status CheckRange(absl::string_view flag, absl::Duration value, absl::Duration low,
                        absl::Duration high) {
  if (value >= low && value <= high) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("--", flag, "=", absl::FormatDuration(value), " is out of range; use ",
                   absl::FormatDuration(low), " to ", absl::FormatDuration(high)));
}

absl::Status CheckDurations(const RawSyncerFlags& raw) {
  const absl::Duration ms100 = absl::Milliseconds(100);
  for (const absl::Status& s :
       {CheckRange("slurm_rest_timeout", raw.rest_timeout, ms100, absl::Minutes(5)),
        CheckRange("node_poll_interval", raw.node_poll_interval, ms100, absl::Minutes(5)),
        CheckRange("full_resync_interval", raw.full_resync_interval, absl::Seconds(10),
                   absl::Hours(24)),
        CheckRange("job_poll_interval", raw.job_poll_interval, ms100, absl::Minutes(5))}) {
    if (!s.ok()) return s;
  }
  if (raw.slurm_metrics_interval != absl::ZeroDuration()) {
    return CheckRange("slurm_metrics_interval", raw.slurm_metrics_interval, absl::Seconds(1),
                      absl::Hours(1));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<slurm::rest::Authenticator>> BuildAuthenticator(
    const RawSyncerFlags& raw) {
  if (!raw.jwt_key_file.empty() && !raw.token_file.empty()) {
    return absl::InvalidArgumentError(
        "--slurm_jwt_key_file and --slurm_token_file are both set; use one");
  }
  if (!raw.token_file.empty()) return slurm::rest::NewTokenFileAuthenticator(raw.token_file);
  if (raw.jwt_key_file.empty()) {
    if (!raw.rest_socket.empty()) return slurm::rest::NewNoAuthenticator();
    return absl::InvalidArgumentError(
        "no slurmrestd credentials: set --slurm_cluster, --slurm_jwt_key_file or "
        "--slurm_token_file, or --slurm_rest_socket for rest_auth/local");
  }
  if (raw.jwt_user.empty()) return absl::InvalidArgumentError("--slurm_jwt_user is empty");
  absl::StatusOr<std::unique_ptr<slurm::rest::Authenticator>> jwt =
      slurm::rest::NewJwtKeyAuthenticator({.key_file = raw.jwt_key_file, .user = raw.jwt_user});
  if (!jwt.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--slurm_jwt_key_file: ", jwt.status().message()));
  }
  return std::shared_ptr<slurm::rest::Authenticator>(*std::move(jwt));
}

absl::StatusOr<RestAddressFrom> ParseRestAddressFrom(absl::string_view text) {
  return common::ParseOneOf<RestAddressFrom>("--slurm_rest_address_from=", text,
                                             {{"dns", RestAddressFrom::kDns},
                                              {"service", RestAddressFrom::kService},
                                              {"url", RestAddressFrom::kUrl}});
}

// --slurm_cluster replaces the other ways to name credentials; a second one set with it
// would be silently ignored, so it is refused.
absl::Status CheckClusterExclusive(const RawSyncerFlags& raw) {
  for (const auto& [flag, value] :
       {std::pair<absl::string_view, absl::string_view>{"--slurm_jwt_key_file", raw.jwt_key_file},
        {"--slurm_token_file", raw.token_file},
        {"--slurm_rest_socket", raw.rest_socket}}) {
    if (value.empty()) continue;
    return absl::InvalidArgumentError(
        absl::StrCat("--slurm_cluster and ", flag,
                     " are both set; use one (with --slurm_cluster the JWT key comes from the "
                     "cluster's Secret and slurmrestd is its Service)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<ClusterOptions> BuildClusterOptions(const RawSyncerFlags& raw,
                                                   RestAddressFrom address_from) {
  if (absl::Status s = CheckClusterExclusive(raw); !s.ok()) return s;
  absl::StatusOr<api::ClusterRef> ref = api::ParseClusterRef(raw.cluster);
  if (!ref.ok()) return ref.status();
  if (raw.jwt_user.empty()) return absl::InvalidArgumentError("--slurm_jwt_user is empty");
  if (absl::Status s = CheckRange("slurm_jwt_key_refresh_interval", raw.jwt_key_refresh_interval,
                                  absl::Seconds(1), absl::Hours(1));
      !s.ok()) {
    return s;
  }
  if (absl::Status s = k8s::ValidateClientFlags(raw.kube_client); !s.ok()) return s;
  return ClusterOptions{.ref = *std::move(ref),
                        .address_from = address_from,
                        .jwt_user = raw.jwt_user,
                        .key_refresh_interval = raw.jwt_key_refresh_interval};
}

// The client options of slurmrestd: from the flags, or (address and, later, the
// authenticator) from the SlurmCluster.
absl::Status BuildClientOptions(const RawSyncerFlags& raw, SyncerOptions& options) {
  absl::StatusOr<RestAddressFrom> address_from = ParseRestAddressFrom(raw.rest_address_from);
  if (!address_from.ok()) return address_from.status();
  options.client.base_url = raw.rest_url;
  options.client.unix_socket = raw.rest_socket;
  options.client.timeout = raw.rest_timeout;
  options.client.version = raw.rest_version;
  if (raw.cluster.empty()) {
    absl::StatusOr<std::shared_ptr<slurm::rest::Authenticator>> auth = BuildAuthenticator(raw);
    if (!auth.ok()) return auth.status();
    options.client.auth = *std::move(auth);
    return absl::OkStatus();
  }
  absl::StatusOr<ClusterOptions> cluster = BuildClusterOptions(raw, *address_from);
  if (!cluster.ok()) return cluster.status();
  switch (cluster->address_from) {
    case RestAddressFrom::kDns:
    case RestAddressFrom::kService:
      // With the CA (and the ClusterIP) read when connecting.
      options.client.base_url = RestUrlByDns(cluster->ref);
      break;
    case RestAddressFrom::kUrl:
      break;
  }
  options.cluster = *std::move(cluster);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SyncerOptions> BuildSyncerOptions(const RawSyncerFlags& raw) {
  if (!absl::StartsWith(raw.rest_url, "http://") && !absl::StartsWith(raw.rest_url, "https://")) {
    return absl::InvalidArgumentError(
        absl::StrCat("--slurm_rest_url=\"", raw.rest_url, "\" is not an http:// or https:// URL"));
  }
  if (!raw.rest_version.empty() && !slurm::rest::DataParserMinor(raw.rest_version).has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--slurm_rest_version=\"", raw.rest_version, "\" is not of the form v0.0.N"));
  }
  if (absl::Status s = CheckDurations(raw); !s.ok()) return s;
  SyncerOptions options;
  if (absl::Status s = BuildClientOptions(raw, options); !s.ok()) return s;
  options.node_polling = {.interval = raw.node_poll_interval,
                          .full_resync_interval = raw.full_resync_interval};
  options.job_poll_interval = raw.job_poll_interval;
  options.slurm_metrics_interval = raw.slurm_metrics_interval;
  for (const std::string& caller : raw.force_callers) {
    if (caller.empty()) {
      return absl::InvalidArgumentError(
          "--force_callers has an empty entry; name certificate identities or '*'");
    }
  }
  options.force_callers = raw.force_callers;
  if (raw.sync_kubernetes) {
    if (absl::Status s = k8s::ValidateClientFlags(raw.kube_client); !s.ok()) return s;
    for (const std::string& type : raw.drain_node_conditions) {
      if (type.empty() || type == api::kReadyCondition) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--drain_node_conditions: \"", type,
            "\" is not a condition type to drain on (Ready=False is handled as pod not ready)"));
      }
    }
    if (absl::Status s = k8s::ValidateLeaderElectionFlags(raw.leader_election); !s.ok()) {
      return s;
    }
    std::string pod_namespace = raw.pod_namespace;
    std::string cluster_name;
    if (options.cluster.has_value()) {
      // A cluster's NodeSets, and so their pods, live in the cluster's namespace.
      const api::ClusterRef& ref = options.cluster->ref;
      if (!pod_namespace.empty() && pod_namespace != ref.namespace_name) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--pod_namespace=", pod_namespace,
            " but the slurmd pods of --slurm_cluster=", ref.ToString(), " are in namespace ",
            ref.namespace_name, ": leave --pod_namespace empty or set it to ", ref.namespace_name));
      }
      pod_namespace = ref.namespace_name;
      cluster_name = ref.name;
    }
    options.two_way = TwoWaySyncOptions{.pod_namespace = pod_namespace,
                                        .cluster_name = cluster_name,
                                        .drain_conditions = raw.drain_node_conditions,
                                        .leader_elect = raw.leader_election.enabled,
                                        .lease_namespace = raw.leader_election.lease_namespace};
  }
  if (options.two_way.has_value() || options.cluster.has_value()) {
    options.kube_client = raw.kube_client;
  }
  return options;
}

RawSyncerFlags ReadSyncerFlags() {
  return {.rest_url = absl::GetFlag(FLAGS_slurm_rest_url),
          .rest_socket = absl::GetFlag(FLAGS_slurm_rest_socket),
          .jwt_key_file = absl::GetFlag(FLAGS_slurm_jwt_key_file),
          .jwt_user = absl::GetFlag(FLAGS_slurm_jwt_user),
          .token_file = absl::GetFlag(FLAGS_slurm_token_file),
          .cluster = absl::GetFlag(FLAGS_slurm_cluster),
          .rest_address_from = absl::GetFlag(FLAGS_slurm_rest_address_from),
          .jwt_key_refresh_interval = absl::GetFlag(FLAGS_slurm_jwt_key_refresh_interval),
          .rest_version = absl::GetFlag(FLAGS_slurm_rest_version),
          .rest_timeout = absl::GetFlag(FLAGS_slurm_rest_timeout),
          .node_poll_interval = absl::GetFlag(FLAGS_node_poll_interval),
          .full_resync_interval = absl::GetFlag(FLAGS_full_resync_interval),
          .job_poll_interval = absl::GetFlag(FLAGS_job_poll_interval),
          .slurm_metrics_interval = absl::GetFlag(FLAGS_slurm_metrics_interval),
          .sync_kubernetes = absl::GetFlag(FLAGS_sync_kubernetes),
          .kube_client = k8s::ReadClientFlags(),
          .pod_namespace = absl::GetFlag(FLAGS_pod_namespace),
          .drain_node_conditions = absl::GetFlag(FLAGS_drain_node_conditions),
          .force_callers = absl::GetFlag(FLAGS_force_callers),
          .leader_election = k8s::ReadLeaderElectionFlags()};
}

}  // namespace tidepool::syncer

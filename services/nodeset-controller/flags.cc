#include "flags.h"

#include <algorithm>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "k8s/dns_names.h"
#include "tidepool/naming.h"

ABSL_FLAG(std::string, syncer_address, "127.0.0.1:50062",
          "host:port of slurm-syncer's gRPC server; every drain and Slurm read goes through it");
ABSL_FLAG(std::string, leader_election_id, "nodeset-controller", "Name of the Lease");
ABSL_FLAG(std::string, watch_namespace, "",
          "Reconcile NodeSets of this namespace only; empty: --slurm_cluster's namespace, or "
          "every namespace");
ABSL_FLAG(std::string, slurm_cluster, "",
          "<namespace>/<name> of the one SlurmCluster this release serves (its slurm-syncer's): "
          "NodeSets of every other cluster are left to the release that serves it. Empty: "
          "every cluster's");
ABSL_FLAG(int32_t, workers, 2,
          "NodeSets synced at once (1-64); a NodeSet is never synced twice "
          "at once");
ABSL_FLAG(absl::Duration, wait_requeue, absl::Seconds(5),
          "How soon to look again at a NodeSet whose pod deletion waits for Slurm (100ms-5m)");
ABSL_FLAG(int32_t, max_pod_creates_per_sync, 100,
          "Pods one sync of a NodeSet creates at most (1-10000); a larger scale-out goes on in "
          "the next syncs, the NodeSet's status written after each");
ABSL_FLAG(std::string, syncer_lease_name, "slurm-syncer",
          "slurm-syncer's leader-election Lease, in --syncer_lease_namespace: while it has no "
          "live holder for 10 s, slurmd pods' SlurmNodeInUse gates are held True (the pods are "
          "not evicted while nothing watches Slurm). Empty: no hold (slurm-syncer runs without "
          "leader election; then --syncer_lease_namespace must be unset too)");
ABSL_FLAG(std::string, syncer_lease_namespace, "",
          "The namespace slurm-syncer runs in (its Lease); empty: --leader_election_namespace. "
          "A wrong one finds no Lease and holds every gate True, so kubectl drain waits");
ABSL_FLAG(std::string, cluster_domain, tidepool::api::kDefaultClusterDomain,
          "The Kubernetes cluster's DNS domain (kubelet's --cluster-domain): slurmd pods search "
          "<cluster>-compute.<namespace>.svc.<domain> so Slurm finds a node by its name");

namespace tidepool::nodeset {
namespace {

absl::Status ValidateClusterDomain(absl::string_view domain) {
  // Each label goes into a pod's dnsConfig.searches.
  if (k8s::IsDnsSubdomain(domain)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("--cluster_domain=\"", domain,
                   "\" is not a DNS name; use dot-separated labels of lowercase letters, digits "
                   "and '-' (such as cluster.local)"));
}

// Checks slurm-syncer's Lease flags and fills in its namespace.
absl::Status ResolveSyncerLease(ControllerOptions& options) {
  if (options.syncer_lease_name.empty()) {
    // No Lease read, no gate held: a namespace for it says someone expected a hold.
    if (options.syncer_lease_namespace.empty()) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        "--syncer_lease_namespace=\"", options.syncer_lease_namespace,
        "\" is set but --syncer_lease_name is empty, so no Lease is read and no gate is held; "
        "set --syncer_lease_name to slurm-syncer's Lease, or drop --syncer_lease_namespace for "
        "a slurm-syncer without leader election"));
  }
  if (!k8s::IsDnsSubdomain(options.syncer_lease_name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--syncer_lease_name=\"", options.syncer_lease_name,
                     "\" is not a Lease name; use slurm-syncer's --leader_election_id, or empty "
                     "for a slurm-syncer without leader election"));
  }
  if (options.syncer_lease_namespace.empty()) {
    options.syncer_lease_namespace = options.leader_election.lease_namespace;
  }
  if (options.syncer_lease_namespace.empty()) {
    return absl::InvalidArgumentError(
        "--syncer_lease_name needs --syncer_lease_namespace or --leader_election_namespace "
        "(where slurm-syncer's Lease is)");
  }
  if (!k8s::IsDnsLabel(options.syncer_lease_namespace)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--syncer_lease_namespace=\"", options.syncer_lease_namespace,
                     "\" is not a namespace name; use the namespace slurm-syncer runs in"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ControllerOptions> ValidateControllerOptions(ControllerOptions options) {
  if (absl::Status s = k8s::ValidateClientFlags(options.client); !s.ok()) return s;
  if (options.workers < 1 || options.workers > 64) {
    return absl::InvalidArgumentError(
        absl::StrCat("--workers=", options.workers, " is out of range; use 1 to 64"));
  }
  if (absl::Status s = k8s::ValidateLeaderElectionFlags(options.leader_election); !s.ok()) {
    return s;
  }
  if (options.leader_election.enabled && options.lease_name.empty()) {
    return absl::InvalidArgumentError("--leader_election_id is empty");
  }
  if (options.wait_requeue < absl::Milliseconds(100) || options.wait_requeue > absl::Minutes(5)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--wait_requeue=", absl::FormatDuration(options.wait_requeue),
                     " is out of range; use 100ms to 5m"));
  }
  if (options.max_pod_creates_per_sync < 1 || options.max_pod_creates_per_sync > 10000) {
    return absl::InvalidArgumentError(
        absl::StrCat("--max_pod_creates_per_sync=", options.max_pod_creates_per_sync,
                     " is out of range; use 1 to 10000"));
  }
  if (absl::Status s = ValidateClusterDomain(options.cluster_domain); !s.ok()) return s;
  if (absl::Status s = ResolveSyncerLease(options); !s.ok()) return s;
  absl::StatusOr<api::ServedCluster> served =
      api::ServedCluster::FromFlags(options.slurm_cluster, options.watch_namespace);
  if (!served.ok()) return served.status();
  options.served = *std::move(served);
  options.watch_namespace = options.served.watch_namespace();
  return options;
}

ControllerOptions ReadControllerFlags() {
  return {.client = k8s::ReadClientFlags(),
          .syncer_address = absl::GetFlag(FLAGS_syncer_address),
          .leader_election = k8s::ReadLeaderElectionFlags(),
          .lease_name = absl::GetFlag(FLAGS_leader_election_id),
          .watch_namespace = absl::GetFlag(FLAGS_watch_namespace),
          .slurm_cluster = absl::GetFlag(FLAGS_slurm_cluster),
          .workers = absl::GetFlag(FLAGS_workers),
          .wait_requeue = absl::GetFlag(FLAGS_wait_requeue),
          .max_pod_creates_per_sync = absl::GetFlag(FLAGS_max_pod_creates_per_sync),
          .cluster_domain = absl::GetFlag(FLAGS_cluster_domain),
          .syncer_lease_name = absl::GetFlag(FLAGS_syncer_lease_name),
          .syncer_lease_namespace = absl::GetFlag(FLAGS_syncer_lease_namespace)};
}

}  // namespace tidepool::nodeset

#pragma once

// One NodeSet key: observe (informer caches, Slurm view) → plan (plan.h) → act (create
// pods, label Nodes, drain through the syncer, delete drained pods, clear our drains) →
// write status from what was observed.

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "k8s/client.h"
#include "k8s/event_recorder.h"
#include "k8s/informer.h"
#include "metrics.h"
#include "slurm_source.h"
#include "tidepool/naming.h"
#include "tidepool/node_label_keys.h"
#include "tidepool/served_cluster.h"

namespace tidepool::nodeset {

// tidepool.dev/v1alpha1 nodesets and slurmclusters.

struct Informers {
  k8s::Informer* node_sets = nullptr;
  k8s::Informer* nodes = nullptr;
  k8s::Informer* pods = nullptr;  // slurmd pods only (label selector)
  k8s::Informer* clusters = nullptr;
};

struct SyncContext {
  k8s::Client* client = nullptr;
  Informers informers;
  SlurmSource* slurm = nullptr;
  k8s::EventRecorder* events = nullptr;
  ControllerMetrics* metrics = nullptr;
  common::Clock* clock = nullptr;  // from setup
  // The labels informers.nodes keeps (null: all); a sync Requires those it reads.
  api::NodeLabelKeys* node_label_keys = nullptr;
  std::string field_manager = "nodeset-controller";
  // How soon to look again while a deletion waits for a drain or for jobs (Slurm watch
  // changes usually wake the key sooner).
  absl::Duration wait_requeue = absl::Seconds(5);
  // Pods one sync creates at most (PlanInput::max_creates): a large scale-out proceeds in
  // steps, with the NodeSet's status written after each.
  int max_pod_creates_per_sync = 100;
  // The Kubernetes cluster's DNS domain, in the search path the slurmd pods get.
  std::string cluster_domain = api::kDefaultClusterDomain;
  // The SlurmCluster this release serves: NodeSets of any other are left alone.
  api::ServedCluster served;
};

struct SyncResult {
  absl::Duration requeue_after = absl::ZeroDuration();  // zero: only on the next event
};

// Errors are the first failed write; the caller retries the key with backoff.
absl::StatusOr<SyncResult> SyncNodeSet(const SyncContext& context, const std::string& key);

}  // namespace tidepool::nodeset

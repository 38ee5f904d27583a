#pragma once

// One SlurmCluster key: the cluster reconciler runs named steps in order (auth, then
// controller, REST API and login for a control plane of pods, then config; accounting
// comes next), each in its own
// <step>_sync.cc with pure builders beside it, then writes the status (status.h) from
// what they found. A later step sees what the earlier ones found in the outcome (a step
// that needs the auth Secrets checks outcome.auth.ready).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/clock.h"
#include "k8s/client.h"
#include "k8s/controller.h"
#include "k8s/event_recorder.h"
#include "k8s/informer.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "status.h"
#include "tidepool/node_label_keys.h"
#include "tidepool/v1/slurm_cluster.pb.h"

namespace tidepool::cluster {

// The caches a cluster's sync reads.
struct ClusterInformers {
  k8s::Informer* clusters = nullptr;
  k8s::Informer* node_sets = nullptr;
  k8s::Informer* pods = nullptr;  // slurmd pods
  k8s::Informer* nodes = nullptr;
  // The labels `nodes` keeps (null: all).
  api::NodeLabelKeys* node_label_keys = nullptr;
  k8s::Informer* config_maps = nullptr;  // slurm-config and login users ConfigMaps
  // The control plane's objects (labelled tidepool.dev/cluster).
  k8s::Informer* stateful_sets = nullptr;
  k8s::Informer* deployments = nullptr;
  k8s::Informer* services = nullptr;
  k8s::Informer* disruption_budgets = nullptr;
  k8s::Informer* claims = nullptr;
};

// The cluster one sync is about.
struct ClusterContext {
  std::string key;
  k8s::CachedObjectPtr cluster;
  std::optional<k8s::ObjectReference> ref;  // for events
  ClusterStatusView status;                 // as cached
  // The object parsed once for every step (an error when it cannot be read).
  absl::StatusOr<v1::SlurmCluster> spec = absl::UnknownError("not parsed");
};

class ClusterStep {
 public:
  virtual ~ClusterStep() = default;
  virtual const char* name() const = 0;
  // Brings the step's objects to what the cluster asks for and records what it found in
  // `outcome`. An error is retried with backoff (the status is written first when the
  // step set outcome.report_error); the steps after it still run, each blocking on what
  // it needs from the outcome (auth ready, the database applied).
  virtual absl::StatusOr<k8s::ReconcileResult> Sync(const ClusterContext& cluster,
                                                    ClusterOutcome& outcome) = 0;
};

class ClusterTeardown;  // teardown.h

class ClusterReconciler : public k8s::Reconciler {
 public:
  // Everything passed outlives the reconciler. With `teardown` (a control plane of pods),
  // every cluster gets its finalizer and a cluster being deleted is torn down in order
  // instead of synced.
  ClusterReconciler(k8s::Client& client, k8s::Informer& clusters, common::Clock* clock,
                    std::string field_manager, std::vector<std::unique_ptr<ClusterStep>> steps,
                    prometheus::Family<prometheus::Counter>& syncs,
                    std::unique_ptr<ClusterTeardown> teardown = nullptr);
  ~ClusterReconciler() override;

  absl::StatusOr<k8s::ReconcileResult> Reconcile(const std::string& key) override;

 private:
  absl::Status WriteStatus(const ClusterContext& cluster, const ClusterOutcome& outcome);

  k8s::Client& client_;
  k8s::Informer& clusters_;
  common::Clock* const clock_;
  const std::string field_manager_;
  const std::vector<std::unique_ptr<ClusterStep>> steps_;
  prometheus::Family<prometheus::Counter>& syncs_;
  const std::unique_ptr<ClusterTeardown> teardown_;
};

}  // namespace tidepool::cluster

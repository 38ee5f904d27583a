#pragma once

// cluster-controller's config loop: SlurmClusters, their NodeSets, slurmd pods and the
// Nodes under them → Render on config-renderer → the "<cluster>-slurm-config" ConfigMap
// → once the files had time to reach the Slurm controller, Reconfigure through the
// syncer. Keyed by SlurmCluster (namespace/name); every event only says which cluster
// to look at (controller.cc), one sync recomputes everything for it (sync.cc).
// Unchanged input renders the same hash and touches neither the ConfigMap nor Slurm.
//
//   tidepool_cluster_controller_syncs_total{result}
//   tidepool_cluster_controller_reconfigures_total{result}

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "builders.h"
#include "common/clock.h"
#include "k8s/client.h"
#include "k8s/controller.h"
#include "k8s/event_recorder.h"
#include "k8s/informer.h"
#include "k8s/leader_election.h"
#include "k8s/leadership.h"
#include "prometheus/counter.h"
#include "prometheus/registry.h"
#include "tidepool/v1/renderer.grpc.pb.h"
#include "tidepool/v1/syncer.grpc.pb.h"

namespace tidepool::cluster {

struct ConfigLoopOptions {
  v1::RenderEnvironment environment;
  // How long a new ConfigMap takes to reach the Slurm controller's files (kubelet's
  // ConfigMap volume sync) before Slurm is told to reconfigure.
  absl::Duration propagation_delay = absl::Seconds(5);
  absl::Duration rpc_timeout = absl::Seconds(20);
  std::string watch_namespace;  // "" = all
  int workers = 2;
  std::string field_manager = "tidepool-cluster-controller";
  k8s::LeadershipOptions leadership;
};

class ConfigLoop : public k8s::Reconciler {
 public:
  // `clock` (from setup) outlives the loop.
  ConfigLoop(k8s::Client& client, v1::ConfigRenderer::StubInterface& renderer,
             v1::SlurmSyncer::StubInterface& syncer, common::Clock* clock,
             ConfigLoopOptions options, prometheus::Registry& registry);
  ~ConfigLoop() override;

  // Starts the informers and the election; the workers run while leading.
  absl::Status Start();
  void Stop();
  bool Synced();

  // sync.cc: one cluster.
  absl::StatusOr<k8s::ReconcileResult> Reconcile(const std::string& key) override;

 private:
  // controller.cc: events → keys.
  void AddHandlers();
  void Enqueue(const std::string& key);
  // Clusters with a slurmd pod on the Kubernetes Node `node`.
  std::set<std::string> ClustersOnNode(const std::string& node);
  // sync.cc
  absl::StatusOr<v1::RenderResponse> Render(const v1::RenderRequest& request);
  absl::Status Reconfigure(const std::string& cause);
  absl::Status WriteStatus(const k8s::CachedObject& cluster, const ConfigLoopOutcome& outcome);

  k8s::Client& client_;
  v1::ConfigRenderer::StubInterface& renderer_;
  v1::SlurmSyncer::StubInterface& syncer_;
  common::Clock* const clock_;
  const ConfigLoopOptions options_;
  prometheus::Family<prometheus::Counter>& syncs_;
  prometheus::Family<prometheus::Counter>& reconfigures_;
  k8s::Informer clusters_;
  k8s::Informer node_sets_;
  k8s::Informer pods_;
  k8s::Informer nodes_;
  k8s::Informer config_maps_;
  k8s::EventRecorder events_;
  k8s::Controller runtime_;
  std::unique_ptr<k8s::LeaseClient> leases_;
  k8s::Leadership leadership_;

  absl::Mutex mutex_;
  // Kubernetes Node → cluster keys with a slurmd pod on it (from pod events).
  std::map<std::string, std::set<std::string>> clusters_on_node_ ABSL_GUARDED_BY(mutex_);
  // When this process last wrote each cluster's ConfigMap.
  std::map<std::string, absl::Time> written_at_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace tidepool::cluster

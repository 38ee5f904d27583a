#pragma once

// cluster-controller on the controller runtime (k8s/controller.h): informers on
// SlurmClusters, their NodeSets, slurmd pods, the Nodes under them and the slurm-config
// ConfigMaps turn events into SlurmCluster keys (namespace/name); the cluster reconciler
// (sync.h) runs the steps for one key (config_sync.h now). Workers run only while this
// replica leads (k8s/leadership.h).
//
//   tidepool_cluster_controller_syncs_total{result}
//   tidepool_cluster_controller_reconfigures_total{result}

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "k8s/client.h"
#include "k8s/controller.h"
#include "k8s/event_recorder.h"
#include "k8s/informer.h"
#include "k8s/leader_election.h"
#include "k8s/leadership.h"
#include "pod_placements.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"
#include "sync.h"
#include "tidepool/served_cluster.h"
#include "tidepool/syncer_client.h"
#include "tidepool/v1/renderer.grpc.pb.h"

namespace tidepool::cluster {

// Where the cluster's Slurm control plane runs: as pods the controller makes (the
// product), or outside Kubernetes (test environments with Slurm on the host).
enum class ControlPlane { kPods, kExternal };

struct ConfigLoopOptions {
  ControlPlane control_plane = ControlPlane::kPods;
  std::string cluster_domain = "cluster.local";
  v1::RenderEnvironment environment;
  // How long a new ConfigMap takes to reach the Slurm controller's files (kubelet's
  // ConfigMap volume sync) before Slurm is told to reconfigure.
  absl::Duration propagation_delay = absl::Seconds(5);
  // Whether a reconfigure counts only once slurmctld lists the rendered nodes (else it is
  // sent again). Always with a control plane of pods; with an external one only where
  // that slurmctld is known to read the rendered files (--verify_config_loaded).
  bool verify_loaded = true;
  // How long slurmctld may take to load a reconfigure before it is sent again.
  absl::Duration load_timeout = absl::Seconds(30);
  absl::Duration rpc_timeout = absl::Seconds(20);
  // The SlurmCluster this release serves (--slurm_cluster; default every one) and the
  // namespace watched.
  api::ServedCluster served;
  int workers = 2;
  std::string field_manager = "tidepool-cluster-controller";
  k8s::LeadershipOptions leadership;
};

class ClusterController {
 public:
  // `clock` (from setup) outlives the controller.
  ClusterController(k8s::Client& client, v1::ConfigRenderer::StubInterface& renderer,
                    api::SyncerClient& syncer, common::Clock* clock, ConfigLoopOptions options,
                    prometheus::Registry& registry);
  ~ClusterController();
  ClusterController(const ClusterController&) = delete;
  ClusterController& operator=(const ClusterController&) = delete;

  // Starts the informers and the election; the workers run while leading.
  absl::Status Start();
  void Stop();
  bool Synced();
  // OK while every cache follows the server (k8s::Informer::Freshness).
  absl::Status CachesCurrent();

 private:
  void AddHandlers();
  // Keys of clusters this release does not serve are dropped (options_.served).
  void Enqueue(const std::string& key);
  std::vector<std::string> ServedKeys();
  // Clusters with a slurmd pod on the Kubernetes Node `node`.
  std::set<std::string> ClustersOnNode(const std::string& node);
  ClusterInformers Informers();
  std::vector<k8s::Informer*> AllInformers();

  const ConfigLoopOptions options_;
  prometheus::Family<prometheus::Counter>& syncs_;
  prometheus::Family<prometheus::Counter>& reconfigures_;
  prometheus::Gauge& leader_;
  k8s::Informer clusters_;
  k8s::Informer node_sets_;
  k8s::Informer pods_;
  // The Node labels nodes_ keeps: those the renders read (they Require them).
  std::shared_ptr<api::NodeLabelKeys> node_label_keys_;
  k8s::Informer nodes_;
  k8s::Informer config_maps_;
  // The control plane's objects, selected by the tidepool.dev/cluster label.
  k8s::Informer stateful_sets_;
  k8s::Informer deployments_;
  k8s::Informer services_;
  k8s::Informer disruption_budgets_;
  k8s::Informer claims_;
  k8s::EventRecorder events_;
  ClusterReconciler reconciler_;
  k8s::Controller runtime_;
  std::unique_ptr<k8s::LeaseClient> leases_;
  k8s::Leadership leadership_;

  PodPlacements placements_;  // Kubernetes Node → clusters with a pod on it
};

}  // namespace tidepool::cluster

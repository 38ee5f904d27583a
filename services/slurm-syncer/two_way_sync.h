#pragma once

// The two-way sync between slurmd pods / their Kubernetes Nodes and Slurm nodes, keyed
// by Slurm node name: informers on slurmd pods and Nodes and the node feed each enqueue
// the Slurm nodes they concern; workers sync one key at a time with sync_policy.h —
// Kubernetes causes become k8s: drains (through the NodeDrainer), Slurm's state becomes
// pod and Node conditions and annotations. Each direction has a queue and workers of its
// own, so a drain never waits behind Kubernetes writes held up by the client's rate limit
// (after a mass change in Slurm, hundreds of them). While either side cannot be seen
// (informers not synced, Slurm unavailable) nothing is changed on the other, but for the
// readiness gates held True through a long Slurm outage (outage_gate_hold.h). Both
// directions are controllers of the runtime (k8s/controller.h), run only while this
// replica holds the lease (k8s/leadership.h) when leader election is on.
//
//   tidepool_slurm_syncer_k8s_syncs_total{direction="to_slurm|to_kubernetes",
//                                         result="ok|error|skipped"}
//   tidepool_slurm_syncer_drain_changes_total{action="drain|undrain", cause}
//   tidepool_slurm_syncer_gates_held_total (outage_gate_hold.h)

#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "k8s/client.h"
#include "k8s/controller.h"
#include "k8s/informer.h"
#include "k8s/leader_election.h"
#include "k8s/leadership.h"
#include "k8s_observation.h"
#include "node_drainer.h"
#include "node_poller.h"
#include "outage_gate_hold.h"
#include "prometheus/counter.h"
#include "prometheus/registry.h"
#include "tidepool/gate_holder.h"
#include "urgency.h"

namespace tidepool::syncer {

struct TwoWaySyncOptions {
  std::string pod_namespace;  // "" = all namespaces
  // The SlurmCluster whose NodeSets' pods are synced (its namespace is pod_namespace);
  // "" = NodeSets of any cluster. A pod no such NodeSet controls is never synced, whatever
  // its labels say: labels are anyone's to set.
  std::string cluster_name;
  std::vector<std::string> drain_conditions;  // Node condition types that drain when True
  absl::Duration resync_period = absl::Minutes(1);
  int workers = 2;  // per direction
  std::string field_manager = "tidepool-slurm-syncer";
  bool leader_elect = true;
  std::string lease_namespace = "tidepool-system";
  std::string identity;  // "" = hostname_pid
};

class TwoWaySync {
 public:
  // `clock` (from setup) outlives the sync.
  TwoWaySync(k8s::Client& client, NodeFeed& feed, NodeDrainer& drainer, common::Clock* clock,
             TwoWaySyncOptions options, prometheus::Registry& registry);
  ~TwoWaySync();

  // InvalidArgument for an impossible election config.
  absl::Status Start();
  void Stop();
  // The informers have listed (for readiness).
  bool Synced();
  // OK while their caches follow the server (k8s::Informer::Freshness).
  absl::Status CachesCurrent();

 private:
  struct Metrics;
  enum class Direction { kToSlurm, kToKubernetes };
  static const char* DirectionLabel(Direction direction);
  // One direction's reconciler: the same observation, its own queue and workers.
  class DirectionReconciler : public k8s::Reconciler {
   public:
    DirectionReconciler(TwoWaySync& sync, Direction direction)
        : sync_(sync), direction_(direction) {}
    absl::StatusOr<k8s::ReconcileResult> Reconcile(const std::string& slurm_node) override;

   private:
    TwoWaySync& sync_;
    const Direction direction_;
  };
  struct Observed;
  k8s::ControllerOptions RuntimeOptions(Direction direction);
  // Ahead of every routine key in the queues `urgency` names (urgency.h).
  void Enqueue(const std::string& slurm_node, Urgency urgency = {});
  void EnqueueAll();
  void WatchPods();
  void WatchNodes();
  void WatchNodeSets();
  // Kubernetes Node → Slurm node again from the cached pods (after the NodeSets changed).
  void RebuildNodeMap();
  // The pod's controller is a NodeSet of the cluster.
  bool OwnedByClusterNodeSet(const PodObservation& pod);
  bool OwnedByClusterNodeSet(const std::string& controller_uid, const std::string& ns);
  // The cached slurmd pods the cluster's NodeSets control whose gate is False, for the
  // outage hold: read in the informer's cache, and only those copied (every 2 s through an
  // outage, the others are not).
  std::vector<api::GateHoldCandidate> GateFalseClusterPods();
  void FollowSlurm(const std::stop_token& stop);
  absl::Status Sync(const std::string& slurm_node, Direction direction);
  // Empty when the pair cannot be synced now (a side unseen, no pod).
  absl::StatusOr<std::optional<Observed>> Observe(const std::string& slurm_node);
  absl::Status SyncKubernetesToSlurm(const PodObservation& pod, const NodeObservation* node,
                                     const slurm::rest::Node& slurm);
  absl::Status SyncSlurmToKubernetes(const PodObservation& pod, const NodeObservation* node,
                                     const slurm::rest::Node& slurm);
  // A drain Kubernetes did not cause started or ended on `slurm_node`, in the poll that
  // began at `poll_started`; ObserveOutsideDrainWritten times it to the write of its
  // conditions, ForgetOutsideDrain drops it (its pod gone: nothing will be written).
  void NoteOutsideDrain(const std::string& slurm_node, absl::Time poll_started);
  void ObserveOutsideDrainWritten(const std::string& slurm_node);
  void ForgetOutsideDrain(const std::string& slurm_node);

  k8s::Client& client_;
  NodeFeed& feed_;
  NodeDrainer& drainer_;
  common::Clock* const clock_;
  const TwoWaySyncOptions options_;
  std::unique_ptr<Metrics> metrics_;
  k8s::Informer pods_;
  k8s::Informer nodes_;
  k8s::Informer node_sets_;
  DirectionReconciler to_slurm_reconciler_;
  DirectionReconciler to_kubernetes_reconciler_;
  k8s::Controller to_slurm_;
  k8s::Controller to_kubernetes_;
  OutageGateHold outage_hold_;
  std::unique_ptr<k8s::LeaseClient> leases_;
  k8s::Leadership leadership_;

  absl::Mutex mutex_;
  // Kubernetes Node name → the Slurm node of the slurmd pod on it (from pod events).
  std::map<std::string, std::string> slurm_node_on_ ABSL_GUARDED_BY(mutex_);
  // The cluster's NodeSets (from NodeSet events): UID → namespace.
  std::map<std::string, std::string> node_set_namespaces_ ABSL_GUARDED_BY(mutex_);
  // Slurm node → when the poll that saw its outside drain change began (NoteOutsideDrain).
  std::map<std::string, absl::Time> outside_drain_seen_ ABSL_GUARDED_BY(mutex_);

  std::jthread follower_;  // FollowSlurm
};

}  // namespace tidepool::syncer

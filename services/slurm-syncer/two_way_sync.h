#pragma once

// The two-way sync between slurmd pods / their Kubernetes Nodes and Slurm nodes, keyed
// by Slurm node name: informers on slurmd pods and Nodes and the node feed each enqueue
// the Slurm nodes they concern; workers sync one key at a time with sync_policy.h —
// Kubernetes causes become k8s: drains (through the NodeDrainer), Slurm's state becomes
// pod and Node conditions and annotations. Each direction has a queue and workers of its
// own, so a drain never waits behind Kubernetes writes held up by the client's rate limit
// (after a mass change in Slurm, hundreds of them). While either side cannot be seen
// (informers not synced, Slurm unavailable) nothing is changed on the other. Only the
// lease holder writes when leader election is on.
//
//   tidepool_slurm_syncer_k8s_syncs_total{direction="to_slurm|to_kubernetes",
//                                         result="ok|error|skipped"}
//   tidepool_slurm_syncer_drain_changes_total{action="drain|undrain", cause}

#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "k8s/client.h"
#include "k8s/informer.h"
#include "k8s/leader_gate.h"
#include "k8s/workqueue.h"
#include "k8s_observation.h"
#include "node_drainer.h"
#include "node_poller.h"
#include "prometheus/counter.h"
#include "prometheus/registry.h"

namespace tidepool::syncer {

struct TwoWaySyncOptions {
  std::string pod_namespace;                  // "" = all namespaces
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
  TwoWaySync(k8s::Client& client, NodeFeed& feed, NodeDrainer& drainer, TwoWaySyncOptions options,
             prometheus::Registry& registry);
  ~TwoWaySync();

  void Start();
  void Stop();
  // Both informers have listed (for readiness).
  bool Synced();

 private:
  struct Metrics;
  enum class Direction { kToSlurm, kToKubernetes };
  static const char* DirectionLabel(Direction direction);
  struct Observed;
  void Enqueue(const std::string& slurm_node);
  void EnqueueAll();
  void WatchPods();
  void WatchNodes();
  void FollowSlurm(std::stop_token stop);
  void Work(Direction direction);
  k8s::WorkQueue& QueueFor(Direction direction);
  bool Leading();
  absl::Status Sync(const std::string& slurm_node, Direction direction);
  // Empty when the pair cannot be synced now (a side unseen, not leading, no pod).
  absl::StatusOr<std::optional<Observed>> Observe(const std::string& slurm_node);
  absl::Status SyncKubernetesToSlurm(const PodObservation& pod, const NodeObservation* node,
                                     const slurm::rest::Node& slurm);
  absl::Status SyncSlurmToKubernetes(const PodObservation& pod, const NodeObservation* node,
                                     const slurm::rest::Node& slurm);

  k8s::Client& client_;
  NodeFeed& feed_;
  NodeDrainer& drainer_;
  const TwoWaySyncOptions options_;
  std::unique_ptr<Metrics> metrics_;
  k8s::WorkQueue to_slurm_;
  k8s::WorkQueue to_kubernetes_;
  k8s::Informer pods_;
  k8s::Informer nodes_;
  k8s::LeaderGate leader_;

  absl::Mutex mutex_;
  // Kubernetes Node name → the Slurm node of the slurmd pod on it (from pod events).
  std::map<std::string, std::string> slurm_node_on_ ABSL_GUARDED_BY(mutex_);

  std::vector<std::jthread> threads_;
};

}  // namespace tidepool::syncer

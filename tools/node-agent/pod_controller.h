#pragma once

// The pod side of a kubelet: for pods bound to the simulated Nodes it runs the workload
// (nothing for plain pods; a real slurmd through the Slurm test environment for slurmd
// pods), writes the pod status, and finishes termination (stops the workload, then
// deletes the pod with grace period 0). An informer feeds a work queue; one sync per pod
// key recomputes everything from the pod and from what runs (level-triggered).

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "agent_options.h"
#include "common/clock.h"
#include "common/periodic_worker.h"
#include "k8s/client.h"
#include "k8s/informer.h"
#include "k8s/workqueue.h"
#include "pod_status.h"
#include "slurm_testenv.h"

namespace tidepool::node_agent {

class PodController {
 public:
  // `slurm` null: no Slurm environment, slurmd pods run like plain pods. Everything
  // passed in outlives the controller.
  PodController(k8s::Client& client, k8s::Informer& pods, const std::vector<SimNode>& nodes,
                SlurmTestenv* slurm, AgentTimings timings,
                common::Clock* clock = common::RealClock());
  ~PodController() { Stop(); }
  PodController(const PodController&) = delete;
  PodController& operator=(const PodController&) = delete;

  // Adds the informer handlers and starts the workers and the periodic resync.
  void Start();
  // Stops the workers (the slurmds keep running; see StopAllSlurmds).
  void Stop();
  // Stops every slurmd the agent runs for a pod (shutdown).
  void StopAllSlurmds();
  // Looks at every slurmd pod again (after a configuration change).
  void EnqueueSlurmdPods();

 private:
  // A slurmd the agent runs for a pod.
  struct RunningSlurmd {
    std::string node;
    std::string pod_uid;
    int starts = 0;  // by the agent, for this pod
  };
  struct SyncResult {
    std::optional<absl::Duration> recheck_after;
  };

  void OnPodEvent(const k8s::CachedObjectPtr& pod);
  void EnqueueAll();
  void Work();
  absl::StatusOr<SyncResult> Sync(const std::string& key);
  absl::StatusOr<SyncResult> SyncLivePod(const PodFacts& pod, const std::string& pod_json);
  absl::Status FinishTermination(const PodFacts& pod);
  WorkloadState RunSlurmd(const PodFacts& pod, SyncResult& result);
  void RecordSlurmd(const PodFacts& pod, const std::string& node, bool started);
  int RestartsOf(const std::string& key);
  // Stops the slurmd run for pod `key` unless a live pod still wants that Slurm node.
  absl::Status ReleaseSlurmd(const std::string& key);
  bool OtherPodWantsNode(const std::string& node, const std::string& except_key);
  std::string PodIpFor(const PodFacts& pod);
  absl::Status WriteStatus(const PodFacts& pod, const std::string& pod_json,
                           const DesiredPodStatus& desired);

  k8s::Client& client_;
  k8s::Informer& pods_;
  std::map<std::string, SimNode> nodes_;  // by name
  SlurmTestenv* const slurm_;
  const AgentTimings timings_;
  common::Clock* const clock_;
  k8s::WorkQueue queue_;
  std::vector<std::thread> workers_;
  std::unique_ptr<common::PeriodicWorker> resync_;

  absl::Mutex mutex_;
  std::map<std::string, RunningSlurmd> slurmds_ ABSL_GUARDED_BY(mutex_);  // by pod key
  std::map<std::string, int> next_pod_ip_ ABSL_GUARDED_BY(mutex_);        // by node name
  std::set<std::string> logged_unknown_ ABSL_GUARDED_BY(mutex_);          // Slurm nodes
};

}  // namespace tidepool::node_agent

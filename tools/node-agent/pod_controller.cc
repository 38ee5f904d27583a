#include "pod_controller.h"

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "k8s/errors.h"
#include "k8s/resource.h"

namespace tidepool::node_agent {
namespace {

constexpr char kFieldManager[] = "tidepool-node-agent";
constexpr int kWorkers = 2;
// A started slurmd is looked at again this soon: Ready only once it is still running.
constexpr absl::Duration kStartRecheck = absl::Seconds(1);

}  // namespace

PodController::PodController(k8s::Client& client, k8s::Informer& pods,
                             const std::vector<SimNode>& nodes, SlurmTestenv* slurm,
                             AgentTimings timings, common::Clock* clock)
    : client_(client),
      pods_(pods),
      slurm_(slurm),
      timings_(timings),
      clock_(clock),
      queue_(clock, k8s::WorkQueueOptions{.base_delay = absl::Milliseconds(200),
                                          .max_delay = absl::Seconds(30)}) {
  for (const SimNode& node : nodes) nodes_[node.name] = node;
}

void PodController::Start() {
  pods_.AddHandlers({
      .on_add = [this](const k8s::CachedObjectPtr& pod) { OnPodEvent(pod); },
      .on_update = [this](const k8s::CachedObjectPtr&,
                          const k8s::CachedObjectPtr& pod) { OnPodEvent(pod); },
      .on_delete = [this](const k8s::CachedObjectPtr& pod) { OnPodEvent(pod); },
  });
  for (int i = 0; i < kWorkers; ++i) workers_.emplace_back([this] { Work(); });
  // Also what no event announces: a slurmd that died, a Slurm node that became known.
  resync_ =
      std::make_unique<common::PeriodicWorker>(timings_.resync_interval, [this] { EnqueueAll(); });
}

void PodController::Stop() {
  if (resync_) resync_->Stop();
  queue_.ShutDown();
  for (std::thread& worker : workers_) worker.join();
  workers_.clear();
}

void PodController::OnPodEvent(const k8s::CachedObjectPtr& pod) {
  absl::StatusOr<PodFacts> facts = ParsePodFacts(pod->json);
  if (facts.ok() && nodes_.contains(facts->node_name)) queue_.Add(pod->meta.Key());
}

void PodController::EnqueueAll() {
  for (const k8s::CachedObjectPtr& pod : pods_.List()) OnPodEvent(pod);
  absl::MutexLock lock(&mutex_);
  for (const auto& [key, slurmd] : slurmds_) queue_.Add(key);
}

void PodController::EnqueueSlurmdPods() {
  for (const k8s::CachedObjectPtr& pod : pods_.List()) {
    absl::StatusOr<PodFacts> facts = ParsePodFacts(pod->json);
    if (facts.ok() && IsSlurmdPod(*facts)) OnPodEvent(pod);
  }
}

void PodController::Work() {
  while (std::optional<std::string> key = queue_.Get()) {
    absl::StatusOr<SyncResult> result = Sync(*key);
    if (!result.ok()) {
      // A conflict only means the cache was behind our own last write: no warning.
      const common::LogLevel level =
          k8s::IsConflict(result.status()) ? common::LogLevel::kDebug : common::LogLevel::kWarn;
      common::Log(level, "pod_sync_failed", {{"pod", *key}, {"error", result.status()}});
      queue_.AddRateLimited(*key);
    } else {
      queue_.Forget(*key);
      if (result->recheck_after) queue_.AddAfter(*key, *result->recheck_after);
    }
    queue_.Done(*key);
  }
}

absl::StatusOr<PodController::SyncResult> PodController::Sync(const std::string& key) {
  k8s::CachedObjectPtr cached = pods_.Get(key);
  if (cached == nullptr) {
    if (absl::Status released = ReleaseSlurmd(key); !released.ok()) return released;
    return SyncResult{};
  }
  absl::StatusOr<PodFacts> pod = ParsePodFacts(cached->json);
  if (!pod.ok()) return pod.status();
  if (!nodes_.contains(pod->node_name)) return SyncResult{};
  if (pod->deleting) {
    if (absl::Status finished = FinishTermination(*pod); !finished.ok()) return finished;
    return SyncResult{};
  }
  if (pod->phase == "Succeeded" || pod->phase == "Failed") return SyncResult{};
  return SyncLivePod(*pod, cached->json);
}

absl::StatusOr<PodController::SyncResult> PodController::SyncLivePod(const PodFacts& pod,
                                                                     const std::string& pod_json) {
  SyncResult result;
  DesiredPodStatus desired;
  if (slurm_ != nullptr && IsSlurmdPod(pod)) {
    desired.workload = RunSlurmd(pod, result);
  } else {
    desired.workload.running = true;
  }
  desired.ready = desired.workload.running && !HeldNotReady(pod);
  desired.pod_ip = PodIpFor(pod);
  desired.host_ip = nodes_.at(pod.node_name).address;
  if (absl::Status written = WriteStatus(pod, pod_json, desired); !written.ok()) return written;
  return result;
}

WorkloadState PodController::RunSlurmd(const PodFacts& pod, SyncResult& result) {
  const std::string node = SlurmNodeOf(pod);
  WorkloadState state{.restart_count = RestartsOf(pod.Key())};
  if (slurm_->SlurmdAbsent(node)) {
    // Scale mode: the environment runs no slurmd for this node; the pod stands in for it
    // (Running, as if slurmd ran), and Slurm shows the node not responding.
    state.running = true;
    return state;
  }
  if (SlurmdHeldStopped(pod)) {
    RecordSlurmd(pod, node, /*started=*/false);
    if (slurm_->SlurmdRunning(node)) {
      absl::Status killed = slurm_->KillSlurmd(node);
      common::LogInfo("slurmd_held_stopped",
                      {{"pod", pod.Key()}, {"node", node}, {"kill", killed}});
    }
    state.waiting_reason = "SlurmdStopped";
    state.waiting_message = absl::StrCat("held stopped by annotation ", kAgentSlurmdAnnotation);
    return state;
  }
  if (slurm_->SlurmdRunning(node)) {
    RecordSlurmd(pod, node, /*started=*/false);
    state.running = true;
    return state;
  }
  state.waiting_reason = "ContainerCreating";
  if (!slurm_->KnowsNode(node)) {
    // Not in slurmctld's configuration yet: the config projection or someone's
    // reconfigure will add it; look again.
    state.waiting_message = absl::StrCat("slurmctld does not know node ", node, " yet");
    result.recheck_after = timings_.resync_interval;
    absl::MutexLock lock(&mutex_);
    if (logged_unknown_.insert(node).second) {
      common::LogInfo("slurm_node_unknown", {{"pod", pod.Key()}, {"node", node}});
    }
    return state;
  }
  absl::Status started = slurm_->StartSlurmd(node);
  common::LogInfo("slurmd_started", {{"pod", pod.Key()}, {"node", node}, {"result", started}});
  if (started.ok()) RecordSlurmd(pod, node, /*started=*/true);
  result.recheck_after = started.ok() ? kStartRecheck : timings_.resync_interval;
  return state;
}

void PodController::RecordSlurmd(const PodFacts& pod, const std::string& node, bool started) {
  absl::MutexLock lock(&mutex_);
  RunningSlurmd& slurmd = slurmds_[pod.Key()];
  if (slurmd.pod_uid != pod.uid) slurmd = RunningSlurmd{.node = node, .pod_uid = pod.uid};
  slurmd.node = node;
  if (started) ++slurmd.starts;
  logged_unknown_.erase(node);
}

int PodController::RestartsOf(const std::string& key) {
  absl::MutexLock lock(&mutex_);
  auto found = slurmds_.find(key);
  return found == slurmds_.end() ? 0 : std::max(0, found->second.starts - 1);
}

absl::Status PodController::FinishTermination(const PodFacts& pod) {
  // As kubelet: stop the containers, then remove the pod at once (grace 0). Finalizers
  // still hold the object; the API server removes it once they are gone.
  if (absl::Status released = ReleaseSlurmd(pod.Key()); !released.ok()) return released;
  absl::StatusOr<std::string> deleted = client_.Delete(
      k8s::Pods(), pod.ns, pod.name, {.precondition_uid = pod.uid, .grace_period_seconds = 0});
  if (deleted.ok()) common::LogInfo("pod_terminated", {{"pod", pod.Key()}});
  if (absl::IsNotFound(deleted.status()) || k8s::IsConflict(deleted.status())) {
    return absl::OkStatus();  // gone already, or another incarnation
  }
  return deleted.status();
}

absl::Status PodController::ReleaseSlurmd(const std::string& key) {
  std::optional<RunningSlurmd> slurmd;
  {
    absl::MutexLock lock(&mutex_);
    auto found = slurmds_.find(key);
    if (found == slurmds_.end()) return absl::OkStatus();
    slurmd = found->second;
  }
  if (!OtherPodWantsNode(slurmd->node, key)) {
    absl::Status stopped = slurm_->StopSlurmd(slurmd->node);
    common::LogInfo("slurmd_stopped", {{"pod", key}, {"node", slurmd->node}, {"result", stopped}});
    if (!stopped.ok()) return stopped;
  }
  absl::MutexLock lock(&mutex_);
  slurmds_.erase(key);
  return absl::OkStatus();
}

bool PodController::OtherPodWantsNode(const std::string& node, const std::string& except_key) {
  for (const k8s::CachedObjectPtr& cached : pods_.List()) {
    if (cached->meta.Key() == except_key || cached->meta.deleting) continue;
    absl::StatusOr<PodFacts> pod = ParsePodFacts(cached->json);
    if (pod.ok() && nodes_.contains(pod->node_name) && IsSlurmdPod(*pod) &&
        SlurmNodeOf(*pod) == node) {
      return true;
    }
  }
  return false;
}

void PodController::StopAllSlurmds() {
  std::map<std::string, RunningSlurmd> slurmds;
  {
    absl::MutexLock lock(&mutex_);
    slurmds.swap(slurmds_);
  }
  for (const auto& [key, slurmd] : slurmds) {
    absl::Status stopped = slurm_->StopSlurmd(slurmd.node);
    common::LogInfo("slurmd_stopped", {{"pod", key}, {"node", slurmd.node}, {"result", stopped}});
  }
}

std::string PodController::PodIpFor(const PodFacts& pod) {
  if (slurm_ != nullptr && IsSlurmdPod(pod)) {
    // The pod is the Slurm node: its address is the node's namespace address.
    return slurm_->NodeAddress(SlurmNodeOf(pod)).value_or("");
  }
  if (!pod.pod_ip.empty()) return pod.pod_ip;
  const SimNode& node = nodes_.at(pod.node_name);
  absl::MutexLock lock(&mutex_);
  const int host = next_pod_ip_[node.name]++ % 250 + 2;
  return absl::StrCat("10.244.", node.ordinal % 256, ".", host);
}

absl::Status PodController::WriteStatus(const PodFacts& pod, const std::string& pod_json,
                                        const DesiredPodStatus& desired) {
  absl::StatusOr<std::optional<std::string>> update =
      PodStatusUpdate(pod_json, desired, clock_->Now());
  if (!update.ok()) return update.status();
  if (!update->has_value()) return absl::OkStatus();
  // Conditional on the cached resourceVersion: a conflict requeues with the newer pod.
  absl::StatusOr<std::string> written = client_.UpdateStatus(
      k8s::Pods(), pod.ns, pod.name, **update, {.field_manager = kFieldManager});
  if (written.ok()) {
    common::LogInfo(
        "pod_status_written",
        {{"pod", pod.Key()}, {"running", desired.workload.running}, {"ready", desired.ready}});
  }
  return written.status();
}

}  // namespace tidepool::node_agent

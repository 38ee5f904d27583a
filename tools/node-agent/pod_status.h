#pragma once

// What the agent reads from a pod (its facts and the test-control annotations) and the
// status it writes for it as kubelet would (pure).

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "agent_options.h"
#include "tidepool/contract.h"

namespace tidepool::node_agent {

// Test controls (tools/node-agent/README.md). "false": the pod's containers run but are
// reported not ready, as after a failing readiness probe.
using api::kAgentReadyAnnotation;
// "stopped": the pod's slurmd is killed and kept stopped; removing it restarts slurmd.
using api::kAgentSlurmdAnnotation;

struct PodFacts {
  std::string ns;
  std::string name;
  std::string uid;
  std::string node_name;
  std::string phase;
  std::string pod_ip;     // status.podIP
  bool deleting = false;  // deletionTimestamp set
  Labels labels;
  Labels annotations;

  std::string Key() const { return ns + "/" + name; }
};

absl::StatusOr<PodFacts> ParsePodFacts(absl::string_view pod_json);

// A pod whose workload is a real slurmd (label tidepool.dev/component=slurmd).
bool IsSlurmdPod(const PodFacts& pod);
// Its Slurm node: the label tidepool.dev/slurm-node, else the pod's name.
std::string SlurmNodeOf(const PodFacts& pod);
bool HeldNotReady(const PodFacts& pod);
bool SlurmdHeldStopped(const PodFacts& pod);

// What the pod's containers do, as the agent runs them.
struct WorkloadState {
  bool running = false;        // plain pods: always; slurmd pods: while slurmd runs
  std::string waiting_reason;  // why not running: ContainerCreating, SlurmdStopped, …
  std::string waiting_message;
  int restart_count = 0;
};

struct DesiredPodStatus {
  WorkloadState workload;
  bool ready = false;   // running and not held not-ready
  std::string pod_ip;   // empty: none yet; an IP the pod already has is kept
  std::string host_ip;  // the Node's InternalIP
};

// `pod_json` with the status kubelet would write at `now` for `desired`: phase Running
// once containers ran (Pending before), conditions PodScheduled, Initialized,
// PodReadyToStartContainers, ContainersReady and Ready, one containerStatus per container,
// IPs and startTime. Times are kept where nothing changed; conditions of other types are
// kept. nullopt when the status already says all this (so no write is needed).
absl::StatusOr<std::optional<std::string>> PodStatusUpdate(absl::string_view pod_json,
                                                           const DesiredPodStatus& desired,
                                                           absl::Time now);

}  // namespace tidepool::node_agent

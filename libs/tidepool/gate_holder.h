#pragma once

// The machine that holds slurmd pods' SlurmNodeInUse gates True while nothing keeps them
// current (tidepool/gate_hold.h says why), for whichever service notices: nodeset-controller
// (slurm-syncer has no leader) and slurm-syncer (Slurm out of its sight). One key on the
// controller runtime, looked at every period while the replica leads (Leadership starts and
// stops runtime()); each look asks the service's decision whether to hold now, tells it when
// that answer turns, and while holding applies the gate True on every candidate pod whose
// gate is False. The decision, its logs and its metrics stay with the service.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "k8s/client.h"
#include "k8s/conditions.h"
#include "k8s/controller.h"
#include "k8s/informer.h"
#include "tidepool/gate_hold.h"
#include "tidepool/pod_view.h"

namespace tidepool::api {

// A pod whose gate a hold may turn: what HoldGate reads of it.
struct GateHoldCandidate {
  std::string ns;
  std::string name;
  std::map<std::string, k8s::Condition> conditions;  // by type
};

// The cached pods (an informer's List) whose gate is False and that `keep` accepts (null:
// all), as candidates. Each pod's view is read where the informer keeps it (parse_view =
// PodViewForCache or one keeping SlurmNodeInUse; parsed from the JSON otherwise) and only a pod
// that passes is copied. A pod that cannot be read is passed over.
std::vector<GateHoldCandidate> GateFalseCandidates(
    const std::vector<k8s::CachedObjectPtr>& pods,
    const std::function<bool(const PodView&)>& keep = nullptr);

struct GateHolderOptions {
  std::string name;  // the runtime's, in its logs (controller=…)
  std::string key;   // the one key it looks at
  GateHoldCause cause{};
  std::string field_manager;
  absl::Duration period = absl::Seconds(2);  // between looks, holding or not
  // The runtime's preconditions (k8s::ControllerOptions): no look until the caches the
  // candidates come from have synced, none while they are stale. Null: none.
  std::function<bool()> caches_synced;
  std::function<absl::Status()> caches_current;
};

class GateHolder : public k8s::Reconciler {
 public:
  // What the service decides and counts; each called only by the runtime's one worker.
  struct Hooks {
    // Whether to hold now; nullopt when it cannot tell (nothing is decided or held, and
    // nothing changes until the next look).
    std::function<std::optional<bool>()> should_hold;
    // When that answer differs from the last one (it starts false): true as holding
    // starts, false as it stops. For the service's logs and gauges; may be null.
    std::function<void(bool holding)> on_change;
    // The pods to hold, gate False (GateFalseCandidates): called on each look while holding.
    std::function<std::vector<GateHoldCandidate>()> candidates;
    // Once per gate turned True; may be null.
    std::function<void()> count_held;
  };

  // `client` and `clock` outlive the holder.
  GateHolder(k8s::Client& client, common::Clock* clock, Hooks hooks, GateHolderOptions options);

  // One look; always looks again after the period (a failed write is logged, retried at
  // the next look, never an error of the key).
  absl::StatusOr<k8s::ReconcileResult> Reconcile(const std::string& key) override;

  // What Leadership starts and stops.
  k8s::Controller& runtime() { return runtime_; }

 private:
  // Applies the gate True on every candidate; how many were written.
  int HoldGates();

  k8s::Client& client_;
  common::Clock* const clock_;
  const Hooks hooks_;
  const GateHolderOptions options_;
  bool holding_ = false;  // only the runtime's one worker touches it
  k8s::Controller runtime_;
};

}  // namespace tidepool::api

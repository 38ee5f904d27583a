#pragma once

// The config step of a cluster's sync: its NodeSets, slurmd pods and the Nodes under
// them → Render on config-renderer → the "<cluster>-slurm-config" ConfigMap → once the
// files had time to reach the Slurm controller (counted from the write time kept on the
// ConfigMap), Reconfigure through the syncer. Unchanged input renders the same hash and
// touches neither the ConfigMap nor Slurm. With verify_loaded (always where Tidepool runs
// slurmctld), the hash counts as applied only once slurmctld lists the rendered nodes
// (loaded_config.h); a reconfigure it did not take within load_timeout is sent again,
// each further time after twice the last wait (ReconfigureLedger::ResendWait).

#include <cstdint>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "k8s/client.h"
#include "k8s/event_recorder.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "reconfigure_ledger.h"
#include "render_inputs.h"
#include "sync.h"
#include "tidepool/syncer_client.h"
#include "tidepool/v1/renderer.grpc.pb.h"

namespace tidepool::cluster {

struct ConfigStepOptions {
  v1::RenderEnvironment environment;
  absl::Duration propagation_delay = absl::Seconds(5);
  absl::Duration rpc_timeout = absl::Seconds(20);
  std::string field_manager;
  bool verify_loaded = false;
  absl::Duration load_recheck = absl::Seconds(2);
  absl::Duration load_timeout = absl::Seconds(30);
};

class ConfigStep : public ClusterStep {
 public:
  // Everything passed outlives the step.
  ConfigStep(k8s::Client& client, v1::ConfigRenderer::StubInterface& renderer,
             api::SyncerClient& syncer, ClusterInformers informers, k8s::EventRecorder& events,
             common::Clock* clock, ConfigStepOptions options,
             prometheus::Family<prometheus::Counter>& reconfigures);

  const char* name() const override { return "config"; }
  absl::StatusOr<k8s::ReconcileResult> Sync(const ClusterContext& cluster,
                                            ClusterOutcome& outcome) override;

 private:
  // The cluster's objects from the caches, as the render wants them.
  ClusterObjects Inputs(const k8s::CachedObject& cluster);
  absl::StatusOr<v1::RenderResponse> Render(const v1::RenderRequest& request);
  // Writes the ConfigMap unless it has the rendered hash; when it was written.
  absl::StatusOr<std::optional<absl::Time>> EnsureConfigMap(const ClusterContext& cluster,
                                                            const v1::SlurmCluster& spec,
                                                            const v1::RenderResponse& rendered,
                                                            int skipped);
  // Asks kubelet to refresh the slurmctld pods' copy of the ConfigMap now: it rewrites a
  // ConfigMap volume only when it syncs the pod, about once a minute (70 s measured on
  // the test nodes), unless the pod changes (0.4 s after an annotation). Best effort: the
  // propagation delay still applies.
  void NudgeControllerPods(const k8s::CachedObject& cluster, const std::string& hash);
  // Reconfigures once the ConfigMap had time to propagate.
  absl::StatusOr<k8s::ReconcileResult> ReconfigureWhenPropagated(
      const ClusterContext& cluster, std::optional<absl::Time> written_at,
      const v1::RenderResponse& rendered, ConfigOutcome& outcome);
  // Reconfigures unless a reconfigure for this hash is younger than its resend wait (from
  // load_timeout, at least api::ReconfigureSpacing(nodes)).
  absl::Status ReconfigureOnce(const ClusterContext& cluster, const std::string& hash,
                               int64_t nodes);
  // Applied when slurmctld lists the rendered nodes; otherwise a recheck soon.
  k8s::ReconcileResult CheckLoaded(const ClusterContext& cluster,
                                   const v1::RenderResponse& rendered, ConfigOutcome& outcome);
  void MarkApplied(const ClusterContext& cluster, ConfigOutcome& outcome, absl::string_view how);
  absl::Status Reconfigure(const std::string& cluster, const std::string& cause);
  void Event(const ClusterContext& cluster, k8s::EventType type, absl::string_view reason,
             absl::string_view action, absl::string_view note);

  k8s::Client& client_;
  v1::ConfigRenderer::StubInterface& renderer_;
  api::SyncerClient& syncer_;
  const ClusterInformers informers_;
  k8s::EventRecorder& events_;
  common::Clock* const clock_;
  const ConfigStepOptions options_;
  prometheus::Family<prometheus::Counter>& reconfigures_;

  // What this replica loaded, and the status hash it replaced: until the cache shows the
  // status written with it, the cached status still says `from`.
  struct Applied {
    std::string from;
    std::string to;
  };
  // The hash Slurm runs as far as this replica knows: the cached status's, unless that is
  // the one this replica replaced by its last load (its own status write not cached yet).
  std::string AppliedHash(const std::string& key, const std::string& status_hash);

  ReconfigureLedger ledger_;
  absl::Mutex mu_;
  // Cluster key → the last load this replica saw through.
  absl::flat_hash_map<std::string, Applied> applied_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tidepool::cluster

#include "config_sync.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/grpc_status.h"
#include "common/log.h"
#include "config_builders.h"
#include "k8s/resource.h"
#include "loaded_config.h"
#include "tidepool/contract.h"
#include "tidepool/naming.h"
#include "tidepool/node_view.h"
#include "tidepool/pod_view.h"
#include "tidepool/reconfigure_spacing.h"

namespace tidepool::cluster {
namespace {

constexpr absl::Duration kBlockedRenderRequeue = absl::Seconds(10);

grpc::ClientContext* WithDeadline(grpc::ClientContext& context, absl::Time now,
                                  absl::Duration timeout) {
  context.set_deadline(absl::ToChronoTime(now + timeout));
  return &context;
}

}  // namespace

ConfigStep::ConfigStep(k8s::Client& client, v1::ConfigRenderer::StubInterface& renderer,
                       api::SyncerClient& syncer, ClusterInformers informers,
                       k8s::EventRecorder& events, common::Clock* clock, ConfigStepOptions options,
                       prometheus::Family<prometheus::Counter>& reconfigures)
    : client_(client),
      renderer_(renderer),
      syncer_(syncer),
      informers_(informers),
      events_(events),
      clock_(clock),
      options_(std::move(options)),
      reconfigures_(reconfigures) {}

void ConfigStep::Event(const ClusterContext& cluster, k8s::EventType type, absl::string_view reason,
                       absl::string_view action, absl::string_view note) {
  if (cluster.ref.has_value()) events_.Record(*cluster.ref, type, reason, action, note);
}

ClusterObjects ConfigStep::Inputs(const k8s::CachedObject& cluster) {
  ClusterObjects objects{.cluster_json = cluster.json};
  for (const k8s::CachedObjectPtr& o : informers_.node_sets->ListNamespace(cluster.meta.ns)) {
    objects.node_set_jsons.push_back(o->json);
  }
  for (const k8s::CachedObjectPtr& o :
       informers_.pods->ListByLabel(api::kClusterLabel, cluster.meta.name)) {
    if (o->meta.ns != cluster.meta.ns) continue;
    // The view the informer parsed when it stored the pod; the JSON only without one.
    if (std::shared_ptr<const api::PodView> view = k8s::SharedViewAs<api::PodView>(o)) {
      objects.pods.push_back(std::move(view));
    } else {
      objects.pod_jsons.push_back(o->json);
    }
  }
  objects.node_view = [nodes = informers_.nodes](const std::string& name) {
    return k8s::SharedViewAs<api::NodeView>(nodes->Get(name));
  };
  objects.node_json = [nodes = informers_.nodes](const std::string& name) {
    k8s::CachedObjectPtr node = nodes->Get(name);
    return node != nullptr ? node->json : std::string();
  };
  if (informers_.node_label_keys != nullptr) {
    // Unavailable while the Node cache relists to keep a label newly read: retried.
    objects.require_node_labels = [keys = informers_.node_label_keys,
                                   nodes = informers_.nodes](const api::LabelKeys& labels) {
      return keys->Require(labels, *nodes);
    };
  }
  return objects;
}

absl::StatusOr<v1::RenderResponse> ConfigStep::Render(const v1::RenderRequest& request) {
  grpc::ClientContext context;
  v1::RenderResponse response;
  grpc::Status status = renderer_.Render(WithDeadline(context, clock_->Now(), options_.rpc_timeout),
                                         request, &response);
  if (!status.ok()) return common::FromGrpcStatus(status, "config-renderer Render");
  return response;
}

absl::Status ConfigStep::Reconfigure(const std::string& cluster, const std::string& cause) {
  v1::ReconfigureRequest request;
  request.set_cluster(cluster);
  request.set_cause(cause);
  // The client's deadline is the loop's rpc_timeout (setup.cc).
  absl::Status status = syncer_.Reconfigure(request);
  reconfigures_.Add({{"result", status.ok() ? "ok" : "error"}}).Increment();
  return status;
}

absl::StatusOr<k8s::ReconcileResult> ConfigStep::Sync(const ClusterContext& cluster,
                                                      ClusterOutcome& cluster_outcome) {
  ConfigOutcome& outcome = cluster_outcome.config;
  absl::StatusOr<RenderInputs> inputs =
      BuildRenderInputs(Inputs(*cluster.cluster), options_.environment);
  absl::StatusOr<v1::RenderResponse> rendered =
      inputs.ok() ? Render(*inputs->request) : absl::StatusOr<v1::RenderResponse>(inputs.status());
  if (!rendered.ok()) {
    const bool bad_input = absl::IsInvalidArgument(rendered.status());
    const bool blocked = absl::IsFailedPrecondition(rendered.status()) && !inputs.ok();
    if (!bad_input && !blocked) return rendered.status();  // retry
    // Said in the status. Bad input waits for the input to change; blocked input (a cache
    // behind, a NodeSet unreadable) is looked at again, as a cache catches up silently.
    outcome.render_error = std::string(rendered.status().message());
    Event(cluster, k8s::EventType::kWarning, api::kRenderFailedReason, "Render",
          outcome.render_error);
    return k8s::ReconcileResult{.requeue_after =
                                    blocked ? kBlockedRenderRequeue : absl::ZeroDuration()};
  }
  outcome.rendered = true;
  outcome.rendered_hash = rendered->config_hash();
  outcome.nodes = rendered->nodes();
  outcome.partitions = rendered->partitions();
  absl::StatusOr<std::optional<absl::Time>> written_at = EnsureConfigMap(
      cluster, inputs->request->cluster(), *rendered, static_cast<int>(inputs->skipped.size()));
  if (!written_at.ok()) return written_at.status();
  // A sync right after a load may still read the status from before it: comparing with that
  // would take a configuration changed back (A -> B -> A) for the one Slurm runs.
  outcome.applied_hash = AppliedHash(cluster.key, outcome.applied_hash);
  if (outcome.applied_hash == outcome.rendered_hash) return k8s::ReconcileResult{};
  absl::StatusOr<k8s::ReconcileResult> result =
      ReconfigureWhenPropagated(cluster, *written_at, *rendered, outcome);
  if (!result.ok()) cluster_outcome.report_error = true;
  return result;
}

absl::StatusOr<std::optional<absl::Time>> ConfigStep::EnsureConfigMap(
    const ClusterContext& cluster, const v1::SlurmCluster& spec, const v1::RenderResponse& rendered,
    int skipped) {
  const k8s::CachedObject& object = *cluster.cluster;
  const std::string name = api::SlurmConfigMapName(object.meta.name);
  k8s::CachedObjectPtr current =
      informers_.config_maps->Get(absl::StrCat(object.meta.ns, "/", name));
  if (current != nullptr && ConfigMapHash(current->json) == rendered.config_hash()) {
    return ConfigMapWrittenAt(current->json);
  }
  const absl::Time now = clock_->Now();
  absl::Status applied =
      client_
          .Apply(k8s::ConfigMaps(), object.meta.ns, name, ConfigMapApplyBody(spec, rendered, now),
                 {.field_manager = options_.field_manager, .force = true})
          .status();
  if (!applied.ok()) return applied;
  NudgeControllerPods(object, rendered.config_hash());
  common::LogInfo("config_written", {{"cluster", cluster.key},
                                     {"hash", rendered.config_hash()},
                                     {"nodes", static_cast<int64_t>(rendered.nodes())},
                                     {"skipped", static_cast<int64_t>(skipped)}});
  Event(cluster, k8s::EventType::kNormal, api::kConfigRenderedReason, "Render",
        absl::StrCat("wrote ", name, " with ", rendered.config_hash(), " (", rendered.nodes(),
                     " nodes)"));
  return std::optional<absl::Time>(now);
}

void ConfigStep::NudgeControllerPods(const k8s::CachedObject& cluster, const std::string& hash) {
  absl::StatusOr<k8s::ListResult> pods = client_.List(
      k8s::Pods(), cluster.meta.ns,
      {.label_selector = absl::StrCat(api::kComponentLabel, "=", api::kSlurmctldComponent, ",",
                                      api::kClusterLabel, "=", cluster.meta.name)});
  if (!pods.ok()) {
    common::LogWarn("config_nudge_failed",
                    {{"cluster", cluster.meta.Key()}, {"error", pods.status()}});
    return;
  }
  const std::string patch = ConfigHashAnnotationPatch(hash);
  for (const std::string& pod : pods->items) {
    absl::StatusOr<k8s::ObjectMeta> meta = k8s::ParseObjectMeta(pod);
    if (!meta.ok()) continue;
    absl::Status patched = client_
                               .MergePatch(k8s::Pods(), meta->ns, meta->name, patch,
                                           {.field_manager = options_.field_manager})
                               .status();
    if (!patched.ok() && !absl::IsNotFound(patched)) {
      common::LogWarn("config_nudge_failed",
                      {{"cluster", cluster.meta.Key()}, {"pod", meta->name}, {"error", patched}});
    }
  }
}

absl::StatusOr<k8s::ReconcileResult> ConfigStep::ReconfigureWhenPropagated(
    const ClusterContext& cluster, std::optional<absl::Time> written_at,
    const v1::RenderResponse& rendered, ConfigOutcome& outcome) {
  const absl::Time now = clock_->Now();
  const absl::Duration wait =
      std::max(WaitLeft(written_at, options_.propagation_delay, now),
               ledger_.SpacingLeft(cluster.key, outcome.rendered_hash, rendered.nodes(), now));
  if (wait > absl::ZeroDuration()) return k8s::ReconcileResult{.requeue_after = wait};
  if (absl::Status reconfigured = ReconfigureOnce(cluster, outcome.rendered_hash, rendered.nodes());
      !reconfigured.ok()) {
    outcome.reconfigure_error = std::string(reconfigured.message());
    return reconfigured;  // retried with backoff, after the status says why
  }
  if (!options_.verify_loaded) {
    MarkApplied(cluster, outcome, "Slurm reconfigured with ");
    return k8s::ReconcileResult{};
  }
  return CheckLoaded(cluster, rendered, outcome);
}

absl::Status ConfigStep::ReconfigureOnce(const ClusterContext& cluster, const std::string& hash,
                                         int64_t nodes) {
  const std::optional<ReconfigureLedger::Pending> pending = ledger_.PendingFor(cluster.key, hash);
  // slurmctld restarts on a reconfigure and reloads every node: a large cluster gets as
  // long as the spacing of its reconfigures, and each send again waits longer.
  const absl::Duration load_timeout =
      std::max(options_.load_timeout, api::ReconfigureSpacing(nodes));
  if (pending.has_value()) {
    const absl::Duration waited = clock_->Now() - pending->returned_at;
    if (waited < ReconfigureLedger::ResendWait(load_timeout, pending->sends)) {
      return absl::OkStatus();
    }
    Event(cluster, k8s::EventType::kWarning, "ConfigNotLoaded", "Reconfigure",
          absl::StrCat(
              "slurmctld did not load ", hash, " within ", absl::FormatDuration(waited),
              " of reconfigure ", pending->sends, "; reconfiguring again (the next after ",
              absl::FormatDuration(ReconfigureLedger::ResendWait(load_timeout, pending->sends + 1)),
              "): ", pending->mismatch));
  }
  absl::Status reconfigured =
      Reconfigure(cluster.key,
                  absl::StrCat(cluster.key, ": config ", cluster.status.config_hash, " -> ", hash));
  // A reconfigure that timed out may have reached slurmctld (busy restarting from the last
  // one): it counts as sent, so it is not repeated at once; the load check tells whether
  // it took, and it is sent again after the load timeout if not. Times count from the
  // call's return, when slurmctld has the request.
  if (reconfigured.ok() || absl::IsDeadlineExceeded(reconfigured)) {
    ledger_.Sent(cluster.key, hash, clock_->Now());
  }
  return reconfigured;
}

k8s::ReconcileResult ConfigStep::CheckLoaded(const ClusterContext& cluster,
                                             const v1::RenderResponse& rendered,
                                             ConfigOutcome& outcome) {
  v1::GetNodesRequest request;
  request.set_fresh(true);
  request.set_cluster(cluster.key);
  absl::StatusOr<v1::GetNodesResponse> listed = syncer_.GetNodes(request);
  std::optional<std::string> mismatch =
      listed.ok() ? LoadedConfigMismatch(rendered.loaded_nodes(), listed->nodes())
                  : absl::StrCat("cannot list slurmctld's nodes: ", listed.status().message());
  if (!mismatch.has_value()) {
    MarkApplied(cluster, outcome, "slurmctld runs on ");
    return k8s::ReconcileResult{};
  }
  ledger_.NotLoaded(cluster.key, *mismatch);
  outcome.load_pending = absl::StrCat("reconfigured; slurmctld has not loaded ",
                                      outcome.rendered_hash, " yet: ", *mismatch);
  return k8s::ReconcileResult{.requeue_after = options_.load_recheck};
}

std::string ConfigStep::AppliedHash(const std::string& key, const std::string& status_hash) {
  absl::MutexLock lock(&mu_);
  auto it = applied_.find(key);
  if (it == applied_.end()) return status_hash;
  if (it->second.from == status_hash && it->second.from != it->second.to) return it->second.to;
  // The status caught up, or another replica wrote it since: it says what Slurm runs.
  applied_.erase(it);
  return status_hash;
}

void ConfigStep::MarkApplied(const ClusterContext& cluster, ConfigOutcome& outcome,
                             absl::string_view how) {
  ledger_.Loaded(cluster.key);
  {
    absl::MutexLock lock(&mu_);
    applied_[cluster.key] = {.from = cluster.status.config_hash, .to = outcome.rendered_hash};
  }
  outcome.applied_hash = outcome.rendered_hash;
  outcome.load_pending.clear();
  Event(cluster, k8s::EventType::kNormal, api::kReconfiguredReason, "Reconfigure",
        absl::StrCat(how, outcome.rendered_hash));
}

}  // namespace tidepool::cluster

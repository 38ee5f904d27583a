// ConfigLoop::Reconcile: one SlurmCluster, from the informers' caches.
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/grpc_status.h"
#include "common/log.h"
#include "controller.h"
#include "k8s/object_json.h"
#include "render_inputs.h"
#include "tidepool/naming.h"
#include "tidepool/resource_types.h"

namespace tidepool::cluster {
namespace {

struct ClusterStatusView {
  std::string config_hash;
  int64_t observed_generation = 0;
  std::map<std::string, k8s::Condition> conditions;
};

ClusterStatusView ReadStatus(const std::string& json) {
  ClusterStatusView view;
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(json, "SlurmCluster");
  if (!doc.ok()) return view;
  if (const rapidjson::Value* status = k8s::FindMember(*doc, "status"); status != nullptr) {
    view.config_hash = k8s::StringMember(*status, "configHash");
    view.observed_generation = k8s::IntMember(*status, "observedGeneration");
  }
  view.conditions = k8s::ReadConditions(*doc);
  return view;
}

std::string ConfigMapHash(const k8s::CachedObjectPtr& config_map) {
  if (config_map == nullptr) return "";
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(config_map->json, "ConfigMap");
  if (!doc.ok()) return "";
  const rapidjson::Value* metadata = k8s::FindMember(*doc, "metadata");
  const rapidjson::Value* annotations =
      metadata != nullptr ? k8s::FindMember(*metadata, "annotations") : nullptr;
  return annotations != nullptr ? k8s::StringMember(*annotations, api::kConfigHashAnnotation) : "";
}

grpc::ClientContext* WithDeadline(grpc::ClientContext& context, absl::Time now,
                                  absl::Duration timeout) {
  context.set_deadline(absl::ToChronoTime(now + timeout));
  return &context;
}

}  // namespace

absl::StatusOr<v1::RenderResponse> ConfigLoop::Render(const v1::RenderRequest& request) {
  grpc::ClientContext context;
  v1::RenderResponse response;
  grpc::Status status = renderer_.Render(WithDeadline(context, clock_->Now(), options_.rpc_timeout),
                                         request, &response);
  if (!status.ok()) return common::FromGrpcStatus(status, "config-renderer Render");
  return response;
}

absl::Status ConfigLoop::Reconfigure(const std::string& cause) {
  grpc::ClientContext context;
  v1::ReconfigureRequest request;
  request.set_cause(cause);
  v1::ReconfigureResponse response;
  absl::Status status = common::FromGrpcStatus(
      syncer_.Reconfigure(WithDeadline(context, clock_->Now(), options_.rpc_timeout), request,
                          &response),
      "slurm-syncer Reconfigure");
  reconfigures_.Add({{"result", status.ok() ? "ok" : "error"}}).Increment();
  return status;
}

absl::Status ConfigLoop::WriteStatus(const k8s::CachedObject& cluster,
                                     const ConfigLoopOutcome& outcome) {
  const ClusterStatusView current = ReadStatus(cluster.json);
  if (StatusUnchanged(outcome, current.config_hash, current.observed_generation,
                      current.conditions)) {
    return absl::OkStatus();
  }
  return client_
      .MergePatch(api::SlurmClusters(), cluster.meta.ns, cluster.meta.name,
                  StatusPatch(outcome, current.conditions, clock_->Now()),
                  {.field_manager = options_.field_manager}, "status")
      .status();
}

absl::StatusOr<k8s::ReconcileResult> ConfigLoop::Reconcile(const std::string& key) {
  // The runtime calls this only while leading and with synced caches.
  k8s::CachedObjectPtr cluster = clusters_.Get(key);
  if (cluster == nullptr) {
    absl::MutexLock lock(&mutex_);
    written_at_.erase(key);
    return k8s::ReconcileResult{};  // the ConfigMap goes with its owner
  }
  const absl::StatusOr<k8s::ObjectReference> ref = k8s::ReferenceTo(cluster->json);
  const ClusterStatusView status = ReadStatus(cluster->json);
  ConfigLoopOutcome outcome{.generation = cluster->meta.generation,
                            .applied_hash = status.config_hash};

  ClusterObjects objects{.cluster_json = cluster->json};
  for (const k8s::CachedObjectPtr& o : node_sets_.ListNamespace(cluster->meta.ns)) {
    objects.node_set_jsons.push_back(o->json);
  }
  for (const k8s::CachedObjectPtr& o : pods_.ListByLabel(api::kClusterLabel, cluster->meta.name)) {
    if (o->meta.ns == cluster->meta.ns) objects.pod_jsons.push_back(o->json);
  }
  objects.node_json = [this](const std::string& name) {
    k8s::CachedObjectPtr node = nodes_.Get(name);
    return node != nullptr ? node->json : std::string();
  };
  absl::StatusOr<RenderInputs> inputs = BuildRenderInputs(objects, options_.environment);
  absl::StatusOr<v1::RenderResponse> rendered =
      inputs.ok() ? Render(inputs->request) : absl::StatusOr<v1::RenderResponse>(inputs.status());
  if (!rendered.ok()) {
    if (!absl::IsInvalidArgument(rendered.status())) return rendered.status();  // retry
    outcome.render_error = std::string(rendered.status().message());
    if (ref.ok()) {
      events_.Record(*ref, k8s::EventType::kWarning, "RenderFailed", "Render",
                     outcome.render_error);
    }
    syncs_.Add({{"result", "invalid"}}).Increment();
    if (absl::Status written = WriteStatus(*cluster, outcome); !written.ok()) return written;
    return k8s::ReconcileResult{};
  }
  outcome.rendered = true;
  outcome.rendered_hash = rendered->config_hash();
  outcome.nodes = rendered->nodes();
  outcome.partitions = rendered->partitions();

  const std::string config_map_name = api::SlurmConfigMapName(cluster->meta.name);
  const std::string config_map_key = absl::StrCat(cluster->meta.ns, "/", config_map_name);
  const absl::Time now = clock_->Now();
  if (ConfigMapHash(config_maps_.Get(config_map_key)) != outcome.rendered_hash) {
    absl::Status applied = client_
                               .Apply(k8s::ConfigMaps(), cluster->meta.ns, config_map_name,
                                      ConfigMapApplyBody(inputs->request.cluster(), *rendered),
                                      {.field_manager = options_.field_manager, .force = true})
                               .status();
    if (!applied.ok()) return applied;
    {
      absl::MutexLock lock(&mutex_);
      written_at_[key] = now;
    }
    common::LogInfo("config_written", {{"cluster", key},
                                       {"hash", outcome.rendered_hash},
                                       {"nodes", static_cast<int64_t>(outcome.nodes)},
                                       {"skipped", static_cast<int64_t>(inputs->skipped.size())}});
    if (ref.ok()) {
      events_.Record(*ref, k8s::EventType::kNormal, "ConfigRendered", "Render",
                     absl::StrCat("wrote ", config_map_name, " with ", outcome.rendered_hash, " (",
                                  outcome.nodes, " nodes)"));
    }
  }
  k8s::ReconcileResult result;
  if (outcome.applied_hash != outcome.rendered_hash) {
    absl::Time written = absl::InfinitePast();
    {
      absl::MutexLock lock(&mutex_);
      if (auto it = written_at_.find(key); it != written_at_.end()) written = it->second;
    }
    const absl::Duration wait = written + options_.propagation_delay - now;
    if (wait > absl::ZeroDuration()) {
      result.requeue_after = wait;
    } else if (absl::Status s = Reconfigure(absl::StrCat(key, ": config ", status.config_hash,
                                                         " -> ", outcome.rendered_hash));
               s.ok()) {
      outcome.applied_hash = outcome.rendered_hash;
      if (ref.ok()) {
        events_.Record(*ref, k8s::EventType::kNormal, "Reconfigured", "Reconfigure",
                       absl::StrCat("Slurm reconfigured with ", outcome.rendered_hash));
      }
    } else {
      outcome.reconfigure_error = std::string(s.message());
      if (absl::Status written_status = WriteStatus(*cluster, outcome); !written_status.ok()) {
        return written_status;
      }
      return s;  // retried with backoff
    }
  }
  syncs_.Add({{"result", "ok"}}).Increment();
  if (absl::Status written = WriteStatus(*cluster, outcome); !written.ok()) return written;
  return result;
}

}  // namespace tidepool::cluster

#include "controller.h"

#include <any>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "accounting_sync.h"
#include "auth_sync.h"
#include "common/log.h"
#include "common/metrics.h"
#include "config_sync.h"
#include "controller_sync.h"
#include "event_filters.h"
#include "k8s/object_json.h"
#include "k8s/resource.h"
#include "login_sync.h"
#include "render_inputs.h"
#include "restapi_sync.h"
#include "teardown.h"
#include "tidepool/cluster_ref.h"
#include "tidepool/naming.h"
#include "tidepool/node_view.h"
#include "tidepool/pod_view.h"
#include "tidepool/render_labels.h"
#include "tidepool/resource_types.h"
#include "tidepool/resources.h"

namespace tidepool::cluster {
namespace {

constexpr char kService[] = "cluster-controller";

k8s::InformerOptions Labelled(absl::string_view component,
                              std::function<std::any(absl::string_view)> parse_view = nullptr) {
  // Readers of a viewed object read its view: its JSON is not kept too.
  return {.label_selector = absl::StrCat(api::kComponentLabel, "=", component),
          .parse_view = std::move(parse_view),
          .keep_viewed_json = false};
}

// "namespace/<tidepool.dev/cluster label>", "" without the label.
std::string ClusterOfLabelled(const k8s::CachedObject& object) {
  auto it = object.meta.labels.find(api::kClusterLabel);
  if (it == object.meta.labels.end()) return "";
  return absl::StrCat(object.meta.ns, "/", it->second);
}

std::string NodeNameOfPod(const k8s::CachedObject& pod) {
  std::optional<api::PodView> parsed;
  const api::PodView* view = api::PodViewIn(pod, parsed);
  return view != nullptr ? view->node_name : "";
}

// The steps of a cluster's sync, in order.
std::vector<std::unique_ptr<ClusterStep>> Steps(
    k8s::Client& client, v1::ConfigRenderer::StubInterface& renderer, api::SyncerClient& syncer,
    ClusterInformers informers, k8s::EventRecorder& events, common::Clock* clock,
    const ConfigLoopOptions& options, prometheus::Family<prometheus::Counter>& reconfigures) {
  std::vector<std::unique_ptr<ClusterStep>> steps;
  // Auth first: every daemon of the cluster mounts its Secrets.
  steps.push_back(std::make_unique<AuthStep>(client, events, options.field_manager));
  if (options.control_plane == ControlPlane::kPods) {
    steps.push_back(std::make_unique<ControllerStep>(
        client, informers, events, options.field_manager, options.cluster_domain));
    steps.push_back(std::make_unique<RestApiStep>(client, informers, events, options.field_manager,
                                                  options.cluster_domain));
    // The database before slurmdbd, which waits for it.
    steps.push_back(
        std::make_unique<AccountingDatabaseStep>(client, informers, events, options.field_manager));
    steps.push_back(
        std::make_unique<AccountingStep>(client, informers, events, options.field_manager));
    steps.push_back(std::make_unique<LoginStep>(client, informers, events, options.field_manager));
  }
  steps.push_back(
      std::make_unique<ConfigStep>(client, renderer, syncer, informers, events, clock,
                                   ConfigStepOptions{.environment = options.environment,
                                                     .propagation_delay = options.propagation_delay,
                                                     .rpc_timeout = options.rpc_timeout,
                                                     .field_manager = options.field_manager,
                                                     .verify_loaded = options.verify_loaded,
                                                     .load_timeout = options.load_timeout},
                                   reconfigures));
  return steps;
}

// The labels any render reads, kept from the start: the GPU labels and the default
// topology's (a cluster's own topology labels and NodeSets' feature labels are Required).
api::LabelKeys DefaultRenderLabelKeys() {
  return api::RenderLabelKeys(v1::SlurmCluster(),
                              google::protobuf::RepeatedPtrField<v1::NodeSet>());
}

k8s::LeadershipOptions WithGauge(k8s::LeadershipOptions options, prometheus::Gauge& leader) {
  options.leader_gauge = &leader;
  return options;
}

}  // namespace

ClusterController::ClusterController(k8s::Client& client,
                                     v1::ConfigRenderer::StubInterface& renderer,
                                     api::SyncerClient& syncer, common::Clock* clock,
                                     ConfigLoopOptions options, prometheus::Registry& registry)
    : options_(std::move(options)),
      syncs_(prometheus::BuildCounter()
                 .Name(common::MetricName(kService, "syncs_total"))
                 .Help("Config-loop syncs of one SlurmCluster by result")
                 .Register(registry)),
      reconfigures_(prometheus::BuildCounter()
                        .Name(common::MetricName(kService, "reconfigures_total"))
                        .Help("Reconfigure calls to the syncer by result (ok, error)")
                        .Register(registry)),
      leader_(common::RegisterLeaderGauge(registry, kService)),
      clusters_(client, api::SlurmClusters(), options_.served.watch_namespace()),
      node_sets_(client, api::NodeSets(), options_.served.watch_namespace()),
      // Pods and Nodes are parsed to their views once, when stored, not on every sync.
      pods_(client, k8s::Pods(), options_.served.watch_namespace(),
            Labelled(api::kSlurmdComponent,
                     // What the render and PodChangeMatters read of a pod's annotations.
                     api::PodViewForCacheKeeping(
                         api::ViewKeeps::Only({api::kSlurmAttributesAnnotation}, {})))),
      node_label_keys_(std::make_shared<api::NodeLabelKeys>(DefaultRenderLabelKeys())),
      nodes_(client, k8s::Nodes(), "",
             {.parse_view = NodeViewForRenderKeeping(node_label_keys_),
              .keep_viewed_json = false,
              .keep_viewed_labels = false}),
      // The rendered configuration's and the login users' (labelled with the login component).
      config_maps_(
          client, k8s::ConfigMaps(), options_.served.watch_namespace(),
          {.label_selector = absl::StrCat(api::kComponentLabel, " in (", api::kSlurmConfigComponent,
                                          ",", api::kLoginComponent, ")")}),
      stateful_sets_(client, k8s::StatefulSets(), options_.served.watch_namespace(),
                     {.label_selector = api::kClusterLabel}),
      deployments_(client, k8s::Deployments(), options_.served.watch_namespace(),
                   {.label_selector = api::kClusterLabel}),
      services_(client, k8s::Services(), options_.served.watch_namespace(),
                {.label_selector = api::kClusterLabel}),
      disruption_budgets_(client, k8s::PodDisruptionBudgets(), options_.served.watch_namespace(),
                          {.label_selector = api::kClusterLabel}),
      claims_(client, k8s::PersistentVolumeClaims(), options_.served.watch_namespace(),
              {.label_selector = api::kClusterLabel}),
      events_(client, {.reporting_controller = "tidepool.dev/cluster-controller",
                       .reporting_instance = options_.leadership.identity.empty()
                                                 ? k8s::DefaultIdentity()
                                                 : options_.leadership.identity}),
      reconciler_(
          client, clusters_, clock, options_.field_manager,
          Steps(client, renderer, syncer, Informers(), events_, clock, options_, reconfigures_),
          syncs_,
          options_.control_plane == ControlPlane::kPods
              ? std::make_unique<ClusterTeardown>(client, events_, clock, options_.field_manager)
              : nullptr),
      runtime_(reconciler_, clock,
               {.name = "cluster",
                .workers = options_.workers,
                .caches_synced = [this] { return Synced(); },
                .caches_current = [this] { return CachesCurrent(); },
                .all_keys = [this] { return ServedKeys(); },
                .on_result =
                    [this](const std::string& key,
                           const absl::StatusOr<k8s::ReconcileResult>& result, absl::Duration) {
                      if (result.ok()) return;
                      syncs_.Add({{"result", "error"}}).Increment();
                      common::LogWarn("cluster_sync_failed",
                                      {{"cluster", key}, {"error", result.status()}});
                    }}),
      leases_(k8s::ApiLeaseClient(client)),
      leadership_(*leases_, clock, WithGauge(options_.leadership, leader_), {&runtime_}) {
  common::AddZeroSeries(syncs_, {{"result", {"ok", "invalid", "error"}}});
  common::AddZeroSeries(reconfigures_, {{"result", {"ok", "error"}}});
}

ClusterController::~ClusterController() { Stop(); }

ClusterInformers ClusterController::Informers() {
  return {.clusters = &clusters_,
          .node_sets = &node_sets_,
          .pods = &pods_,
          .nodes = &nodes_,
          .node_label_keys = node_label_keys_.get(),
          .config_maps = &config_maps_,
          .stateful_sets = &stateful_sets_,
          .deployments = &deployments_,
          .services = &services_,
          .disruption_budgets = &disruption_budgets_,
          .claims = &claims_};
}

std::vector<k8s::Informer*> ClusterController::AllInformers() {
  std::vector<k8s::Informer*> informers = {&clusters_, &node_sets_, &pods_, &nodes_, &config_maps_};
  if (options_.control_plane == ControlPlane::kPods) {
    // Only a control plane of pods has these to watch (and RBAC to list them).
    informers.insert(informers.end(),
                     {&stateful_sets_, &deployments_, &services_, &disruption_budgets_, &claims_});
  }
  return informers;
}

absl::Status ClusterController::Start() {
  AddHandlers();
  for (k8s::Informer* informer : AllInformers()) informer->Start();
  return leadership_.Start();
}

void ClusterController::Stop() {
  leadership_.Stop();  // the workers first, then the lease
  for (k8s::Informer* informer : AllInformers()) informer->Stop();
}

bool ClusterController::Synced() {
  for (k8s::Informer* informer : AllInformers()) {
    if (!informer->HasSynced()) return false;
  }
  return true;
}

absl::Status ClusterController::CachesCurrent() { return k8s::CachesCurrent(AllInformers()); }

void ClusterController::Enqueue(const std::string& key) {
  if (key.empty() || key.back() == '/' || !options_.served.Serves(key)) return;
  runtime_.Enqueue(key);
}

std::vector<std::string> ClusterController::ServedKeys() {
  std::vector<std::string> keys = clusters_.Keys();
  std::erase_if(keys, [this](const std::string& key) { return !options_.served.Serves(key); });
  return keys;
}

std::set<std::string> ClusterController::ClustersOnNode(const std::string& node) {
  return placements_.ClustersOn(node);
}

void ClusterController::AddHandlers() {
  auto by = [this](const std::function<std::string(const k8s::CachedObject&)>& key_of) {
    return k8s::InformerHandlers{
        .on_add = [this, key_of](const k8s::CachedObjectPtr& o) { Enqueue(key_of(*o)); },
        .on_update =
            [this, key_of](const k8s::CachedObjectPtr& old_object,
                           const k8s::CachedObjectPtr& new_object) {
              Enqueue(key_of(*old_object));
              Enqueue(key_of(*new_object));
            },
        .on_delete = [this, key_of](const k8s::CachedObjectPtr& o) { Enqueue(key_of(*o)); }};
  };
  clusters_.AddHandlers(by([](const k8s::CachedObject& o) { return o.meta.Key(); }));
  node_sets_.AddHandlers(
      by([](const k8s::CachedObject& o) { return api::NodeSetClusterKey(o.meta.ns, o.json); }));
  for (k8s::Informer* owned : {&config_maps_, &stateful_sets_, &deployments_, &services_,
                               &disruption_budgets_, &claims_}) {
    owned->AddHandlers(by(ClusterOfLabelled));
  }
  k8s::InformerHandlers pod_handlers = by(ClusterOfLabelled);
  const auto place = [this](const k8s::CachedObject& pod) {
    placements_.Place(pod.meta.Key(), NodeNameOfPod(pod), ClusterOfLabelled(pod));
  };
  pod_handlers.on_add = [place, on_add = pod_handlers.on_add](const k8s::CachedObjectPtr& pod) {
    place(*pod);
    on_add(pod);
  };
  pod_handlers.on_update = [place, on_update = pod_handlers.on_update](
                               const k8s::CachedObjectPtr& before,
                               const k8s::CachedObjectPtr& after) {
    place(*after);
    // slurm-syncer's writes (a pod's Slurm state, its eviction gate) feed no sync.
    if (PodChangeMatters(*before, *after)) {
      on_update(before, after);
    }
  };
  pod_handlers.on_delete = [this,
                            on_delete = pod_handlers.on_delete](const k8s::CachedObjectPtr& pod) {
    placements_.Remove(pod->meta.Key());
    on_delete(pod);
  };
  pods_.AddHandlers(std::move(pod_handlers));
  auto on_node = [this](const k8s::CachedObjectPtr& node) {
    for (const std::string& key : ClustersOnNode(node->meta.name)) Enqueue(key);
  };
  nodes_.AddHandlers(
      {.on_add = on_node,
       .on_update =
           [this](const k8s::CachedObjectPtr& before, const k8s::CachedObjectPtr& after) {
             // Most Nodes host no cluster's pods; heartbeats change nothing the render reads.
             const std::set<std::string> keys = ClustersOnNode(after->meta.name);
             if (keys.empty() || !NodeRenderInputChanged(*before, *after)) return;
             for (const std::string& key : keys) Enqueue(key);
           },
       .on_delete = on_node});
}

}  // namespace tidepool::cluster

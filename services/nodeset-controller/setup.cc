#include "setup.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "controller.h"
#include "flags.h"
#include "gate_guard.h"
#include "k8s/client_flags.h"
#include "k8s/config.h"
#include "k8s/leader_election.h"
#include "k8s/leadership.h"
#include "tidepool/grpc_callers.h"
#include "tidepool/naming.h"
#include "tidepool/node_view.h"
#include "tidepool/pod_view.h"
#include "tidepool/resource_types.h"

namespace tidepool::nodeset {
namespace {

constexpr absl::Duration kSyncerCallTimeout = absl::Seconds(10);

// What lives as long as the process serves; taken down by the shutdown hook.
class Process {
 public:
  Process(ControllerOptions options, k8s::ClientConfig config,
          const common::ChannelOptions& syncer_channel, common::Clock* clock,
          prometheus::Registry& registry)
      : options_(std::move(options)),
        clock_(clock),
        identity_(k8s::DefaultIdentity()),
        client_(std::move(config), clock_),
        leases_(k8s::ApiLeaseClient(client_)),
        factory_(client_),
        metrics_(registry),
        recorder_(client_, {.reporting_controller = "tidepool.dev/nodeset-controller",
                            .reporting_instance = identity_}),
        slurm_(options_.syncer_address, syncer_channel, kSyncerCallTimeout, clock_,
               [this](const std::vector<std::string>& names, bool all) {
                 metrics_.SetSlurmReachable(slurm_.reachable());
                 controller_->OnSlurmChange(names, all);
               }) {
    const std::string& ns = options_.watch_namespace;
    // Pods and Nodes are parsed to their views once, when the informer stores them, so a
    // sync (which reads every Node and the cluster's pods) parses none.
    informers_ = {
        .node_sets = &factory_.For(api::NodeSets(), ns),
        .nodes = &factory_.For(
            k8s::Nodes(), "",
            {.parse_view = api::NodeViewForCacheKeeping(
                 api::NodeModel::kRead, api::ViewKeeps::Only({}, {}), node_label_keys_),
             .keep_viewed_json = false,
             .keep_viewed_labels = false}),
        .pods = &factory_.For(
            k8s::Pods(), ns,
            {.label_selector = absl::StrCat(api::kComponentLabel, "=", api::kSlurmdComponent),
             // Its gate guard reads SlurmNodeInUse.
             .parse_view = api::PodViewForCacheKeeping(
                 api::ViewKeeps::Only({}, {api::kSlurmNodeInUseCondition})),
             .keep_viewed_json = false}),
        .clusters = &factory_.For(api::SlurmClusters(), ns)};
    controller_ = std::make_unique<NodeSetController>(
        SyncContext{.client = &client_,
                    .informers = informers_,
                    .slurm = &slurm_,
                    .events = &recorder_,
                    .metrics = &metrics_,
                    .clock = clock_,
                    .node_label_keys = node_label_keys_.get(),
                    .wait_requeue = options_.wait_requeue,
                    .max_pod_creates_per_sync = options_.max_pod_creates_per_sync,
                    .cluster_domain = options_.cluster_domain,
                    .served = options_.served},
        options_.workers);
    controller_->RegisterHandlers();
    std::vector<k8s::Controller*> while_leading = {&controller_->runtime()};
    if (!options_.syncer_lease_name.empty()) {
      gate_guard_ = std::make_unique<GateGuard>(
          client_, *leases_, *informers_.pods, clock_, metrics_,
          GateGuardOptions{.lease_namespace = options_.syncer_lease_namespace,
                           .lease_name = options_.syncer_lease_name,
                           .field_manager = "nodeset-controller",
                           .served = options_.served});
      while_leading.push_back(&gate_guard_->runtime());
    }
    leadership_ = std::make_unique<k8s::Leadership>(
        *leases_, clock_,
        k8s::LeadershipOptions{.enabled = options_.leader_election.enabled,
                               .lease_namespace = options_.leader_election.lease_namespace,
                               .lease_name = options_.lease_name,
                               .identity = identity_,
                               .leader_gauge = &metrics_.leader()},
        std::move(while_leading));
  }

  // Workers run only while leading (or always, without --leader_elect), and reconcile
  // only once the informers synced.
  absl::Status Start() {
    factory_.Start();
    slurm_.Start();
    return leadership_->Start();
  }

  void Stop() {
    leadership_->Stop();  // the workers first, then the lease
    slurm_.Stop();
    factory_.Stop();
    recorder_.Flush(absl::Seconds(2));
  }

  absl::Status Readiness() {
    for (k8s::Informer* informer :
         {informers_.node_sets, informers_.nodes, informers_.pods, informers_.clusters}) {
      if (!informer->HasSynced()) return absl::UnavailableError("informer caches not synced");
    }
    return k8s::CachesCurrent(
        {informers_.node_sets, informers_.nodes, informers_.pods, informers_.clusters});
  }

 private:
  const ControllerOptions options_;
  common::Clock* const clock_;
  const std::string identity_;
  k8s::Client client_;
  std::unique_ptr<k8s::LeaseClient> leases_;
  k8s::InformerFactory factory_;
  ControllerMetrics metrics_;
  k8s::EventRecorder recorder_;
  SyncerSlurmSource slurm_;
  // The Node labels the Node cache keeps: Tidepool's own and those NodeSets select by.
  std::shared_ptr<api::NodeLabelKeys> node_label_keys_ =
      std::make_shared<api::NodeLabelKeys>(api::LabelKeys{api::kSlurmNodeLabel});
  Informers informers_;
  std::unique_ptr<NodeSetController> controller_;
  std::unique_ptr<GateGuard> gate_guard_;
  std::unique_ptr<k8s::Leadership> leadership_;
};

}  // namespace

absl::Status SetUpNodeSetController(common::ServiceContext& context) {
  absl::StatusOr<ControllerOptions> options = ValidateControllerOptions(ReadControllerFlags());
  if (!options.ok()) return options.status();
  absl::StatusOr<k8s::ClientConfig> config =
      k8s::ClientConfigFromFlags(options->client, "tidepool-nodeset-controller");
  if (!config.ok()) return config.status();
  common::LogInfo("nodeset_controller_configured",
                  {{"api_server", config->server},
                   {"syncer", options->syncer_address},
                   {"leader_elect", options->leader_election.enabled},
                   {"watch_namespace", options->watch_namespace},
                   {"slurm_cluster", options->served.ToString()},
                   {"cluster_domain", options->cluster_domain}});
  auto process = std::make_shared<Process>(*std::move(options), *std::move(config),
                                           context.ChannelTo(api::kSlurmSyncerIdentity),
                                           common::RealClock(), context.metrics());
  context.AddReadinessCheck("informers", [process] { return process->Readiness(); });
  if (absl::Status started = process->Start(); !started.ok()) return started;
  context.OnShutdown([process] { process->Stop(); });
  return absl::OkStatus();
}

}  // namespace tidepool::nodeset

#include "setup.h"

#include <memory>
#include <stop_token>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "controller.h"
#include "controller_flags.h"
#include "k8s/client_flags.h"
#include "k8s/config.h"
#include "k8s/leader_election.h"
#include "k8s/leader_gate.h"
#include "tidepool/naming.h"
#include "tidepool/resource_types.h"

namespace tidepool::nodeset {
namespace {

constexpr absl::Duration kSyncerCallTimeout = absl::Seconds(10);
constexpr absl::Duration kCacheSyncTimeout = absl::Minutes(5);

// What lives as long as the process serves; taken down by the shutdown hook.
class Process {
 public:
  Process(ControllerOptions options, k8s::ClientConfig config, prometheus::Registry& registry)
      : options_(std::move(options)),
        identity_(k8s::DefaultIdentity()),
        client_(std::move(config)),
        factory_(client_),
        metrics_(registry),
        recorder_(client_, {.reporting_controller = "tidepool.dev/nodeset-controller",
                            .reporting_instance = identity_}),
        slurm_(options_.syncer_address, kSyncerCallTimeout,
               [this](const std::vector<std::string>& names, bool all) {
                 metrics_.SetSlurmReachable(slurm_.reachable());
                 controller_->OnSlurmChange(names, all);
               }) {
    const std::string& ns = options_.watch_namespace;
    informers_ = {.node_sets = &factory_.For(api::NodeSets(), ns),
                  .nodes = &factory_.For(k8s::Nodes()),
                  .pods = &factory_.For(k8s::Pods(), ns,
                                        {.label_selector = absl::StrCat(api::kComponentLabel, "=",
                                                                        api::kSlurmdComponent)}),
                  .clusters = &factory_.For(api::SlurmClusters(), ns)};
    controller_ =
        std::make_unique<NodeSetController>(SyncContext{.client = &client_,
                                                        .informers = informers_,
                                                        .slurm = &slurm_,
                                                        .events = &recorder_,
                                                        .metrics = &metrics_,
                                                        .wait_requeue = options_.wait_requeue},
                                            options_.workers);
    controller_->RegisterHandlers();
  }

  void Start() {
    factory_.Start();
    slurm_.Start();
    leading_ = std::jthread([this](std::stop_token stop) { Lead(stop); });
  }

  void Stop() {
    leading_.request_stop();
    if (leading_.joinable()) leading_.join();
    controller_->StopWorkers();
    slurm_.Stop();
    factory_.Stop();
    recorder_.Flush(absl::Seconds(2));
  }

  absl::Status Readiness() {
    for (k8s::Informer* informer :
         {informers_.node_sets, informers_.nodes, informers_.pods, informers_.clusters}) {
      if (!informer->HasSynced()) return absl::UnavailableError("informer caches not synced");
    }
    return absl::OkStatus();
  }

 private:
  // Reconciles only with synced caches, and (with --leader_elect) only while leading.
  void Lead(std::stop_token stop) {
    while (!factory_.WaitForSync(absl::Seconds(1))) {
      if (stop.stop_requested()) return;
    }
    if (!options_.leader_election.enabled) {
      controller_->StartWorkers();
      return;
    }
    k8s::LeaderElector elector(
        client_, {.lease_namespace = options_.leader_election.lease_namespace,
                  .lease_name = options_.lease_name,
                  .identity = identity_,
                  .callbacks = {.on_started_leading = [this] { controller_->StartWorkers(); },
                                .on_stopped_leading = [this] { controller_->StopWorkers(); },
                                .on_new_leader =
                                    [](const std::string& leader) {
                                      common::LogInfo("leader", {{"identity", leader}});
                                    }},
                  .on_error = [](const absl::Status& error) {
                    common::LogWarn("leader_election_error", {{"error", error}});
                  }});
    while (!stop.stop_requested()) {
      if (absl::Status s = elector.Run(stop); !s.ok()) {
        common::LogError("leader_election_failed", {{"error", s}});
        return;
      }
    }
  }

  const ControllerOptions options_;
  const std::string identity_;
  k8s::Client client_;
  k8s::InformerFactory factory_;
  ControllerMetrics metrics_;
  k8s::EventRecorder recorder_;
  SyncerClient slurm_;
  Informers informers_;
  std::unique_ptr<NodeSetController> controller_;
  std::jthread leading_;
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
                   {"watch_namespace", options->watch_namespace}});
  auto process =
      std::make_shared<Process>(*std::move(options), *std::move(config), context.metrics());
  context.AddReadinessCheck("informers", [process] { return process->Readiness(); });
  process->Start();
  context.OnShutdown([process] { process->Stop(); });
  return absl::OkStatus();
}

}  // namespace tidepool::nodeset

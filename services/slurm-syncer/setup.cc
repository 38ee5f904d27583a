#include "setup.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "flags.h"
#include "job_poller.h"
#include "k8s/client.h"
#include "k8s/client_flags.h"
#include "k8s/config.h"
#include "node_drainer.h"
#include "node_poller.h"
#include "slurm_gateway.h"
#include "syncer_service.h"
#include "two_way_sync.h"

namespace tidepool::syncer {
namespace {

// What lives as long as the process serves; stopped by the shutdown hook.
struct Syncer {
  Syncer(SyncerOptions options, prometheus::Registry& registry)
      : gateway(std::move(options.client), registry),
        node_feed([](const slurm::rest::Node& node) { return node.name; }),
        job_feed([](const slurm::rest::Job& job) { return job.id; }),
        node_poller(gateway, node_feed, options.node_polling, registry),
        drainer(gateway, node_poller),
        job_poller(gateway, job_feed, options.job_poll_interval, registry) {}

  absl::Status Readiness() const { return node_feed.Current(); }

  SlurmGateway gateway;
  NodeFeed node_feed;
  JobFeed job_feed;
  NodePoller node_poller;
  NodeDrainer drainer;
  JobPoller job_poller;
  // The Kubernetes side, when --sync_kubernetes.
  std::unique_ptr<k8s::Client> kube;
  std::unique_ptr<TwoWaySync> two_way;
};

absl::Status SetUpTwoWaySync(Syncer& syncer, const SyncerOptions& options,
                             common::ServiceContext& context) {
  absl::StatusOr<k8s::ClientConfig> config =
      k8s::ClientConfigFromFlags(options.kube_client, "tidepool-slurm-syncer");
  if (!config.ok()) {
    return absl::Status(config.status().code(),
                        absl::StrCat(config.status().message(),
                                     " (or --sync_kubernetes=false to serve only Slurm)"));
  }
  // The one place the real clock comes in for the Kubernetes side.
  common::Clock* const clock = common::RealClock();
  syncer.kube = std::make_unique<k8s::Client>(*std::move(config), clock);
  syncer.two_way = std::make_unique<TwoWaySync>(*syncer.kube, syncer.node_feed, syncer.drainer,
                                                clock, *options.two_way, context.metrics());
  TwoWaySync* two_way = syncer.two_way.get();
  context.AddReadinessCheck("kubernetes", [two_way] {
    return two_way->Synced() ? absl::OkStatus()
                             : absl::UnavailableError("pod and Node informers not synced yet");
  });
  return absl::OkStatus();
}

}  // namespace

absl::Status SetUpSlurmSyncer(common::ServiceContext& context) {
  absl::StatusOr<SyncerOptions> options = BuildSyncerOptions(ReadSyncerFlags());
  if (!options.ok()) return options.status();
  const NodePollerOptions polling = options->node_polling;
  auto syncer = std::make_shared<Syncer>(*options, context.metrics());
  if (options->two_way.has_value()) {
    if (absl::Status s = SetUpTwoWaySync(*syncer, *options, context); !s.ok()) return s;
  }
  auto* service = static_cast<SyncerService*>(context.AddGrpcService(
      std::make_unique<SyncerService>(syncer->gateway, syncer->node_feed, syncer->node_poller,
                                      syncer->drainer, syncer->job_feed, syncer->job_poller)));
  context.AddReadinessCheck("slurm", [syncer] { return syncer->Readiness(); });
  common::LogInfo("slurm_syncer_configured",
                  {{"slurmrestd", syncer->gateway.Describe()},
                   {"node_poll_interval", polling.interval},
                   {"full_resync_interval", polling.full_resync_interval},
                   {"sync_kubernetes", options->two_way.has_value()}});
  syncer->node_poller.Start();
  syncer->job_poller.Start();
  if (syncer->two_way != nullptr) {
    if (absl::Status started = syncer->two_way->Start(); !started.ok()) return started;
  }
  context.OnStopServing([service] { service->EndStreams(); });
  context.OnShutdown([syncer] {
    if (syncer->two_way != nullptr) syncer->two_way->Stop();
    syncer->job_poller.Stop();
    syncer->node_poller.Stop();
  });
  return absl::OkStatus();
}

}  // namespace tidepool::syncer

#include "syncer.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "job_poller.h"
#include "node_poller.h"
#include "slurm_gateway.h"
#include "syncer_flags.h"
#include "syncer_service.h"

namespace tidepool::syncer {
namespace {

// What lives as long as the process serves; stopped by the shutdown hook.
struct Syncer {
  Syncer(SyncerOptions options, prometheus::Registry& registry)
      : gateway(std::move(options.client), registry),
        node_feed([](const slurm::rest::Node& node) { return node.name; }),
        job_feed([](const slurm::rest::Job& job) { return job.id; }),
        node_poller(gateway, node_feed, options.node_polling, registry),
        job_poller(gateway, job_feed, options.job_poll_interval, registry) {}

  absl::Status Readiness() const {
    if (std::optional<std::string> reason = node_feed.unavailable_reason(); reason.has_value()) {
      return absl::UnavailableError(*reason);
    }
    if (!node_feed.synced()) return absl::UnavailableError("first node poll not done yet");
    return absl::OkStatus();
  }

  SlurmGateway gateway;
  NodeFeed node_feed;
  JobFeed job_feed;
  NodePoller node_poller;
  JobPoller job_poller;
};

}  // namespace

absl::Status SetUpSyncer(common::ServiceContext& context) {
  absl::StatusOr<SyncerOptions> options = BuildSyncerOptions(ReadSyncerFlags());
  if (!options.ok()) return options.status();
  const NodePollerOptions polling = options->node_polling;
  auto syncer = std::make_shared<Syncer>(*std::move(options), context.metrics());
  auto* service = static_cast<SyncerService*>(context.AddGrpcService(
      std::make_unique<SyncerService>(syncer->gateway, syncer->node_feed, syncer->node_poller,
                                      syncer->job_feed, syncer->job_poller)));
  context.AddReadinessCheck("slurm", [syncer] { return syncer->Readiness(); });
  common::LogInfo("slurm_syncer_configured",
                  {{"slurmrestd", syncer->gateway.Describe()},
                   {"node_poll_interval", polling.interval},
                   {"full_resync_interval", polling.full_resync_interval}});
  syncer->node_poller.Start();
  syncer->job_poller.Start();
  context.OnStopServing([service] { service->EndStreams(); });
  context.OnShutdown([syncer] {
    syncer->job_poller.Stop();
    syncer->node_poller.Stop();
  });
  return absl::OkStatus();
}

}  // namespace tidepool::syncer

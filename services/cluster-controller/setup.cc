#include "setup.h"

#include <memory>
#include <utility>

#include "common/grpc_channel.h"
#include "common/log.h"
#include "controller.h"
#include "flags.h"
#include "k8s/client_flags.h"
#include "k8s/config.h"
#include "tidepool/grpc_callers.h"
#include "tidepool/syncer_client.h"

namespace tidepool::cluster {
namespace {

// What lives as long as the process serves.
struct Process {
  std::unique_ptr<k8s::Client> client;
  std::unique_ptr<v1::ConfigRenderer::Stub> renderer;
  std::unique_ptr<api::SyncerClient> syncer;
  std::unique_ptr<ClusterController> loop;
};

}  // namespace

absl::Status SetUpClusterController(common::ServiceContext& context) {
  absl::StatusOr<ControllerSettings> settings = BuildControllerSettings(ReadControllerFlags());
  if (!settings.ok()) return settings.status();
  absl::StatusOr<k8s::ClientConfig> config =
      k8s::ClientConfigFromFlags(settings->client, "tidepool-cluster-controller");
  if (!config.ok()) return config.status();
  // The one place the real clock comes in; everything below takes it.
  common::Clock* const clock = common::RealClock();
  auto controller = std::make_shared<Process>();
  controller->client = std::make_unique<k8s::Client>(*std::move(config), clock);
  absl::StatusOr<std::shared_ptr<grpc::Channel>> renderer = common::MakeChannel(
      settings->renderer_address, context.ChannelTo(api::kConfigRendererIdentity));
  if (!renderer.ok()) return renderer.status();
  absl::StatusOr<std::shared_ptr<grpc::Channel>> syncer =
      common::MakeChannel(settings->syncer_address, context.ChannelTo(api::kSlurmSyncerIdentity));
  if (!syncer.ok()) return syncer.status();
  controller->renderer = v1::ConfigRenderer::NewStub(*std::move(renderer));
  controller->syncer = std::make_unique<api::GrpcSyncerClient>(*std::move(syncer),
                                                               settings->loop.rpc_timeout, clock);
  controller->loop = std::make_unique<ClusterController>(*controller->client, *controller->renderer,
                                                         *controller->syncer, clock, settings->loop,
                                                         context.metrics());
  ClusterController* loop = controller->loop.get();
  context.AddReadinessCheck("informers", [loop] {
    return loop->Synced() ? loop->CachesCurrent() : absl::UnavailableError("caches not synced yet");
  });
  common::LogInfo("config_loop_configured",
                  {{"renderer", settings->renderer_address},
                   {"syncer", settings->syncer_address},
                   {"propagation_delay", settings->loop.propagation_delay},
                   {"load_timeout", settings->loop.load_timeout},
                   {"slurm_cluster", settings->loop.served.ToString()},
                   {"watch_namespace", settings->loop.served.watch_namespace()}});
  if (absl::Status started = loop->Start(); !started.ok()) return started;
  context.OnShutdown([controller] { controller->loop->Stop(); });
  return absl::OkStatus();
}

}  // namespace tidepool::cluster

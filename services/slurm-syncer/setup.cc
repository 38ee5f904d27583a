#include "setup.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "cluster_jwt_key.h"
#include "cluster_jwt_key_source.h"
#include "common/log.h"
#include "flags.h"
#include "job_poller.h"
#include "k8s/client.h"
#include "k8s/client_flags.h"
#include "k8s/config.h"
#include "node_drainer.h"
#include "node_poller.h"
#include "restapi_url.h"
#include "slurm_gateway.h"
#include "slurm_metrics.h"
#include "syncer_service.h"
#include "tidepool/grpc_callers.h"
#include "two_way_sync.h"

namespace tidepool::syncer {
namespace {

// What lives as long as the process serves; stopped by the shutdown hook.
struct Syncer {
  Syncer(SyncerOptions options, prometheus::Registry& registry,
         RestEndpointResolver resolve_endpoint)
      : gateway(std::move(options.client), registry, absl::Seconds(1), std::move(resolve_endpoint)),
        node_feed([](const slurm::rest::Node& node) { return node.name; }),
        job_feed([](const slurm::rest::Job& job) { return job.id; }),
        node_poller(gateway, node_feed, options.node_polling, registry),
        drainer(gateway, node_poller),
        job_poller(gateway, job_feed, options.job_poll_interval, registry) {
    if (options.slurm_metrics_interval != absl::ZeroDuration()) {
      slurm_metrics = std::make_unique<SlurmMetrics>(gateway, node_feed,
                                                     options.slurm_metrics_interval, registry);
    }
  }

  absl::Status Readiness() const { return node_feed.Current(); }

  SlurmGateway gateway;
  NodeFeed node_feed;
  JobFeed job_feed;
  NodePoller node_poller;
  NodeDrainer drainer;
  JobPoller job_poller;
  std::unique_ptr<SlurmMetrics> slurm_metrics;  // unless --slurm_metrics_interval=0
  // The Kubernetes client, with --sync_kubernetes or --slurm_cluster.
  std::shared_ptr<k8s::Client> kube;
  std::unique_ptr<TwoWaySync> two_way;
};

// Bounds each read of the cluster's objects: a slow API server delays slurmrestd calls.
constexpr absl::Duration kClusterReadTimeout = absl::Seconds(5);

absl::StatusOr<std::shared_ptr<k8s::Client>> NewKubeClient(const SyncerOptions& options) {
  absl::StatusOr<k8s::ClientConfig> config =
      k8s::ClientConfigFromFlags(options.kube_client, "tidepool-slurm-syncer");
  if (!config.ok()) {
    if (options.cluster.has_value()) return config.status();  // needed for the credentials
    return absl::Status(config.status().code(),
                        absl::StrCat(config.status().message(),
                                     " (or --sync_kubernetes=false to serve only Slurm)"));
  }
  // The real clock paces the client's rate limiter.
  return std::make_shared<k8s::Client>(*std::move(config), common::RealClock());
}

// --slurm_cluster: tokens minted from the key in the cluster's Secret, kept fresh, with
// readiness saying which object is wrong while there is no key.
std::shared_ptr<slurm::rest::Authenticator> ClusterAuthenticator(const ClusterOptions& cluster,
                                                                 std::shared_ptr<k8s::Client> kube,
                                                                 common::ServiceContext& context) {
  auto source = std::make_shared<ClusterJwtKeySource>(
      [kube, ref = cluster.ref] { return ReadClusterJwtKey(*kube, ref, kClusterReadTimeout); },
      ClusterJwtKeySourceOptions{.cluster = cluster.ref.ToString(),
                                 .refresh_interval = cluster.key_refresh_interval});
  context.AddReadinessCheck("slurm_jwt_key", [source] { return source->Health(); });
  // Read now rather than at the first slurmrestd call, so a problem with the objects is
  // logged and in readiness at once (a failure is retried, not fatal).
  (void)source->Key();
  return slurm::rest::NewJwtAuthenticator(source, {.user = cluster.jwt_user});
}

// --slurm_cluster: slurmrestd over TLS, trusting the CA of the cluster's TLS Secret (read
// again when it no longer verifies), unless --slurm_rest_address_from=url names it.
RestEndpointResolver ClusterEndpointResolver(const ClusterOptions& cluster,
                                             std::shared_ptr<k8s::Client> kube) {
  if (cluster.address_from == RestAddressFrom::kUrl) return nullptr;
  return
      [kube, ref = cluster.ref, via_service = cluster.address_from == RestAddressFrom::kService] {
        return ReadRestEndpoint(*kube, ref, via_service, kClusterReadTimeout);
      };
}

absl::Status SetUpTwoWaySync(Syncer& syncer, const SyncerOptions& options,
                             common::ServiceContext& context) {
  syncer.two_way =
      std::make_unique<TwoWaySync>(*syncer.kube, syncer.node_feed, syncer.drainer,
                                   common::RealClock(), *options.two_way, context.metrics());
  TwoWaySync* two_way = syncer.two_way.get();
  context.AddReadinessCheck("kubernetes", [two_way] {
    return two_way->Synced()
               ? two_way->CachesCurrent()
               : absl::UnavailableError("pod, Node and NodeSet informers not synced yet");
  });
  return absl::OkStatus();
}

}  // namespace

absl::Status SetUpSlurmSyncer(common::ServiceContext& context) {
  absl::StatusOr<SyncerOptions> options = BuildSyncerOptions(ReadSyncerFlags());
  if (!options.ok()) return options.status();
  const NodePollerOptions polling = options->node_polling;
  std::shared_ptr<k8s::Client> kube;
  if (options->two_way.has_value() || options->cluster.has_value()) {
    absl::StatusOr<std::shared_ptr<k8s::Client>> client = NewKubeClient(*options);
    if (!client.ok()) return client.status();
    kube = *std::move(client);
  }
  RestEndpointResolver resolve_endpoint;
  if (options->cluster.has_value()) {
    options->client.auth = ClusterAuthenticator(*options->cluster, kube, context);
    resolve_endpoint = ClusterEndpointResolver(*options->cluster, kube);
  }
  const std::string credentials =
      options->client.auth != nullptr ? options->client.auth->Describe() : std::string("none");
  auto syncer = std::make_shared<Syncer>(*options, context.metrics(), std::move(resolve_endpoint));
  syncer->kube = std::move(kube);
  if (options->two_way.has_value()) {
    if (absl::Status s = SetUpTwoWaySync(*syncer, *options, context); !s.ok()) return s;
  }
  auto* service =
      static_cast<SyncerService*>(context.AddGrpcService(std::make_unique<SyncerService>(
          syncer->gateway, syncer->node_feed, syncer->node_poller, syncer->drainer,
          syncer->job_feed, syncer->job_poller, context.Authorizer(api::SlurmSyncerGrants()),
          options->force_callers,
          options->cluster.has_value() ? options->cluster->ref.ToString() : std::string())));
  context.AddReadinessCheck("slurm", [syncer] { return syncer->Readiness(); });
  common::LogInfo("slurm_syncer_configured",
                  {{"slurmrestd", syncer->gateway.Describe()},
                   {"credentials", credentials},
                   {"node_poll_interval", polling.interval},
                   {"full_resync_interval", polling.full_resync_interval},
                   {"slurm_metrics_interval", options->slurm_metrics_interval},
                   {"sync_kubernetes", options->two_way.has_value()}});
  syncer->node_poller.Start();
  syncer->job_poller.Start();
  if (syncer->slurm_metrics != nullptr) syncer->slurm_metrics->Start();
  if (syncer->two_way != nullptr) {
    if (absl::Status started = syncer->two_way->Start(); !started.ok()) return started;
  }
  context.OnStopServing([service] { service->EndStreams(); });
  context.OnShutdown([syncer] {
    if (syncer->two_way != nullptr) syncer->two_way->Stop();
    if (syncer->slurm_metrics != nullptr) syncer->slurm_metrics->Stop();
    syncer->job_poller.Stop();
    syncer->node_poller.Stop();
  });
  return absl::OkStatus();
}

}  // namespace tidepool::syncer

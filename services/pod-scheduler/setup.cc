#include "setup.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/grpc_channel.h"
#include "common/log.h"
#include "common/periodic_worker.h"
#include "flags.h"
#include "job_table.h"
#include "job_watch.h"
#include "k8s/config.h"
#include "k8s/controller.h"
#include "k8s/leader_election.h"
#include "k8s/leadership.h"
#include "scheduled_pod.h"
#include "sync.h"
#include "syncer_jobs.h"
#include "tidepool/contract.h"
#include "tidepool/grpc_callers.h"
#include "tidepool/pod_view.h"
#include "tidepool/resource_types.h"

namespace tidepool::podsched {
namespace {

constexpr absl::Duration kSyncerCallTimeout = absl::Seconds(10);
constexpr absl::Duration kGaugeInterval = absl::Seconds(5);
// Pods the default scheduler places never concern this one; the API server filters them.
constexpr char kNotDefaultScheduler[] = "spec.schedulerName!=default-scheduler";

// What lives as long as the process serves; taken down by the shutdown hook.
class Process {
 public:
  Process(SchedulerOptions options, k8s::ClientConfig config,
          std::shared_ptr<grpc::Channel> channel, prometheus::Registry& registry)
      : options_(std::move(options)),
        clock_(common::RealClock()),
        identity_(k8s::DefaultIdentity()),
        client_(std::move(config), clock_),
        leases_(k8s::ApiLeaseClient(client_)),
        factory_(client_),
        metrics_(registry),
        recorder_(client_, {.reporting_controller = "tidepool.dev/pod-scheduler",
                            .reporting_instance = identity_}),
        syncer_(std::move(channel), kSyncerCallTimeout),
        jobs_(clock_->Now()),
        watch_(syncer_, jobs_, [this](const std::set<std::string>& keys, bool everything) {
          OnJobsChanged(keys, everything);
        }) {
    const std::string& ns = options_.cluster_namespace;
    informers_ = {
        .pods = &factory_.For(k8s::Pods(), "",
                              {.field_selector = kNotDefaultScheduler,
                               .parse_view = ScheduledPodForCache,
                               .keep_viewed_json = false}),
        .slurmd_pods = &factory_.For(
            k8s::Pods(), ns,
            {.label_selector = absl::StrCat(api::kComponentLabel, "=", api::kSlurmdComponent),
             .parse_view = api::PodViewForCacheKeeping(api::ViewKeeps::Only({}, {})),
             .keep_viewed_json = false}),
        .node_sets = &factory_.For(api::NodeSets(), ns),
        // Every namespace's: another cluster's scheduler may have the same name.
        .clusters = &factory_.For(api::SlurmClusters(), "")};
    sync_ = std::make_unique<PodSync>(SyncContext{.client = &client_,
                                                  .informers = informers_,
                                                  .jobs = &jobs_,
                                                  .syncer = &syncer_,
                                                  .events = &recorder_,
                                                  .metrics = &metrics_,
                                                  .clock = clock_,
                                                  .cluster_namespace = ns,
                                                  .cluster_name = options_.cluster_name});
    controller_ = std::make_unique<k8s::Controller>(
        *sync_, clock_,
        k8s::ControllerOptions{.name = "pod-scheduler",
                               .workers = options_.workers,
                               .caches_synced = [this] { return CachesSynced(); },
                               .caches_current = [this] { return CachesCurrent(); },
                               .all_keys = [this] { return AllKeys(); }});
    RegisterHandlers();
    leadership_ = std::make_unique<k8s::Leadership>(
        *leases_, clock_,
        k8s::LeadershipOptions{.enabled = options_.leader_election.enabled,
                               .lease_namespace = options_.leader_election.lease_namespace,
                               .lease_name = options_.lease_name,
                               .identity = identity_,
                               .leader_gauge = &metrics_.leader()},
        std::vector<k8s::Controller*>{controller_.get()});
  }

  absl::Status Start() {
    factory_.Start();
    watch_.Start();
    gauges_ = std::make_unique<common::PeriodicWorker>(kGaugeInterval,
                                                       [this] { sync_->UpdatePodGauges(); });
    return leadership_->Start();
  }

  void Stop() {
    leadership_->Stop();  // the workers first, then the lease
    gauges_.reset();
    watch_.Stop();
    factory_.Stop();
    recorder_.Flush(absl::Seconds(2));
  }

  // Ready once the API server's caches synced and slurm-syncer's job view is current.
  absl::Status Readiness() {
    if (!CachesSynced()) return absl::UnavailableError("informer caches not synced");
    if (absl::Status current = CachesCurrent(); !current.ok()) return current;
    if (std::string problem = watch_.problem(); !problem.empty()) {
      return absl::UnavailableError(problem);
    }
    if (!jobs_.fresh()) return absl::UnavailableError("no current job view from slurm-syncer");
    return absl::OkStatus();
  }

 private:
  absl::Status CachesCurrent() {
    return k8s::CachesCurrent(
        {informers_.pods, informers_.slurmd_pods, informers_.node_sets, informers_.clusters});
  }

  bool CachesSynced() {
    for (k8s::Informer* informer :
         {informers_.pods, informers_.slurmd_pods, informers_.node_sets, informers_.clusters}) {
      if (!informer->HasSynced()) return false;
    }
    return true;
  }

  // Every pod of the cache and its group, every key a placeholder job names (the
  // reaper's), and the scheduler name's report.
  std::vector<std::string> AllKeys() {
    std::set<std::string> keys = {PodSync::kSchedulerNameKey};
    for (const k8s::CachedObjectPtr& pod : informers_.pods->List()) {
      for (std::string& key : PodSync::SyncKeysOf(*pod, jobs_)) keys.insert(std::move(key));
    }
    for (std::string& key : jobs_.PodKeys()) keys.insert(std::move(key));
    return {keys.begin(), keys.end()};
  }

  void OnJobsChanged(const std::set<std::string>& keys, bool everything) {
    if (everything) {
      controller_->EnqueueAll();
      return;
    }
    for (const std::string& key : keys) controller_->Enqueue(key);
  }

  void RegisterHandlers() {
    auto enqueue = [this](const k8s::CachedObjectPtr& object) {
      for (const std::string& key : PodSync::SyncKeysOf(*object, jobs_)) controller_->Enqueue(key);
    };
    informers_.pods->AddHandlers(
        {.on_add = enqueue,
         .on_update = [enqueue](const k8s::CachedObjectPtr&,
                                const k8s::CachedObjectPtr& now) { enqueue(now); },
         .on_delete = enqueue});
    // The cluster's scheduler name or enablement changing concerns every pod. A slurmd pod
    // or NodeSet changing does not enqueue anything (the syncer annotates slurmd pods all
    // the time): a pod waiting for a Slurm node's slurmd pod looks again on its own.
    // Any cluster's spec (another may take the scheduler name), not its status: every
    // release's cluster-controller writes status often.
    auto all = [this](const k8s::CachedObjectPtr&) { controller_->EnqueueAll(); };
    informers_.clusters->AddHandlers(
        {.on_add = all,
         .on_update =
             [this](const k8s::CachedObjectPtr& before, const k8s::CachedObjectPtr& after) {
               if (before->meta.generation != after->meta.generation) controller_->EnqueueAll();
             },
         .on_delete = all});
  }

  const SchedulerOptions options_;
  common::Clock* const clock_;
  const std::string identity_;
  k8s::Client client_;
  std::unique_ptr<k8s::LeaseClient> leases_;
  k8s::InformerFactory factory_;
  SchedulerMetrics metrics_;
  k8s::EventRecorder recorder_;
  GrpcSyncerJobs syncer_;
  JobTable jobs_;
  JobWatch watch_;
  Informers informers_;
  std::unique_ptr<PodSync> sync_;
  std::unique_ptr<k8s::Controller> controller_;
  std::unique_ptr<k8s::Leadership> leadership_;
  std::unique_ptr<common::PeriodicWorker> gauges_;
};

}  // namespace

absl::Status SetUpPodScheduler(common::ServiceContext& context) {
  absl::StatusOr<SchedulerOptions> options = ReadSchedulerFlags();
  if (!options.ok()) return options.status();
  absl::StatusOr<k8s::ClientConfig> config =
      k8s::ClientConfigFromFlags(options->client, "tidepool-pod-scheduler");
  if (!config.ok()) return config.status();
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      common::MakeChannel(options->syncer_address, context.ChannelTo(api::kSlurmSyncerIdentity));
  if (!channel.ok()) return channel.status();
  common::LogInfo("pod_scheduler_configured",
                  {{"api_server", config->server},
                   {"syncer", options->syncer_address},
                   {"slurm_cluster", options->cluster_namespace + "/" + options->cluster_name},
                   {"leader_elect", options->leader_election.enabled}});
  auto process = std::make_shared<Process>(*std::move(options), *std::move(config),
                                           *std::move(channel), context.metrics());
  context.AddReadinessCheck("scheduler", [process] { return process->Readiness(); });
  if (absl::Status started = process->Start(); !started.ok()) return started;
  context.OnShutdown([process] { process->Stop(); });
  return absl::OkStatus();
}

}  // namespace tidepool::podsched

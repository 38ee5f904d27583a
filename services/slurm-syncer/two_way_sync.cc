#include "two_way_sync.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "common/metrics.h"
#include "k8s/errors.h"
#include "k8s/resource.h"
#include "prometheus/histogram.h"
#include "sync_policy.h"
#include "tidepool/contract.h"
#include "tidepool/naming.h"
#include "tidepool/node_view.h"
#include "tidepool/pod_view.h"
#include "tidepool/resource_types.h"
#include "tidepool/resources.h"
#include "urgency.h"

namespace tidepool::syncer {
namespace {

constexpr char kRequester[] = "two-way-sync";

// The bounded label of a drain reason: the first whose prefix it has, else "other".
constexpr std::pair<const char*, const char*> kDrainCauses[] = {
    {api::kPodTerminatingDrainReason, "pod_terminating"},
    {api::kPodNotReadyDrainReason, "pod_not_ready"},
    {api::kCordonDrainReasonPrefix, "cordon"},
    {api::kNodeConditionDrainReasonPrefix, "node_condition"},
};
constexpr char kOtherDrainCause[] = "other";

const char* CauseOf(absl::string_view reason) {
  for (const auto& [prefix, cause] : kDrainCauses) {
    if (absl::StartsWith(reason, prefix)) return cause;
  }
  return kOtherDrainCause;
}

std::vector<std::string> DrainCauseLabels() {
  std::vector<std::string> labels;
  for (const auto& [prefix, cause] : kDrainCauses) labels.emplace_back(cause);
  labels.emplace_back(kOtherDrainCause);
  return labels;
}

// Pods and Nodes are parsed to their views once, when the informers store them, so a sync
// (one per Slurm node and direction) parses neither.
// Of a pod's annotations and conditions, the two-way sync reads the ones it writes only.
k8s::InformerOptions SlurmdPods() {
  return {.label_selector = absl::StrCat(api::kComponentLabel, "=", api::kSlurmdComponent),
          .parse_view = api::PodViewForCacheKeeping(api::ViewKeeps::Only(
              {api::kSlurmStateAnnotation, api::kSlurmReasonAnnotation},
              {api::kSyncerPodConditions.begin(), api::kSyncerPodConditions.end()})),
          .keep_viewed_json = false};
}

// The drain inputs only: the two-way sync does not read taints or allocatable, and of the
// annotations and conditions only those it writes and the `drain_conditions`.
k8s::InformerOptions DrainInputsOfNodes(const std::vector<std::string>& drain_conditions) {
  std::vector<std::string> conditions(api::kSyncerNodeConditions.begin(),
                                      api::kSyncerNodeConditions.end());
  conditions.insert(conditions.end(), drain_conditions.begin(), drain_conditions.end());
  return {.parse_view = api::NodeViewForCacheKeeping(
              api::NodeModel::kSkip,
              api::ViewKeeps::Only({api::kDrainAnnotation}, std::move(conditions))),
          .keep_viewed_json = false,
          .keep_viewed_labels = false};
}

}  // namespace

struct TwoWaySync::Metrics {
  explicit Metrics(prometheus::Registry& registry)
      : syncs(prometheus::BuildCounter()
                  .Name(common::MetricName("slurm-syncer", "k8s_syncs_total"))
                  .Help("Syncs of one Slurm node by direction (to_slurm, to_kubernetes) and "
                        "result (ok, error, skipped)")
                  .Register(registry)),
        drains(prometheus::BuildCounter()
                   .Name(common::MetricName("slurm-syncer", "drain_changes_total"))
                   .Help("Drains set or cleared by the two-way sync, by cause")
                   .Register(registry)),
        gates_held(prometheus::BuildCounter()
                       .Name(common::MetricName("slurm-syncer", "gates_held_total"))
                       .Help("slurmd pods' SlurmNodeInUse gates turned True while Slurm was "
                             "out of sight")
                       .Register(registry)
                       .Add({})),
        outside_drain_to_kubernetes(
            prometheus::BuildHistogram()
                .Name(common::MetricName("slurm-syncer", "outside_drain_to_k8s_seconds"))
                .Help("From the start of the node poll that saw a drain Kubernetes did not "
                      "cause start or end in Slurm, to its conditions written on the pod and "
                      "Node (slurmrestd's reply, the queue, the writes)")
                .Register(registry)
                .Add({}, prometheus::Histogram::BucketBoundaries{0.05, 0.1, 0.25, 0.5, 1, 1.5, 2, 3,
                                                                 5, 10, 30, 60})),
        leader(common::RegisterLeaderGauge(registry, "slurm-syncer")) {
    common::AddZeroSeries(syncs, {{"direction", {"to_slurm", "to_kubernetes"}},
                                  {"result", {"ok", "error", "skipped"}}});
    common::AddZeroSeries(drains,
                          {{"action", {"drain", "undrain"}}, {"cause", DrainCauseLabels()}});
  }
  void Count(Direction direction, const char* result) {
    syncs.Add({{"direction", DirectionLabel(direction)}, {"result", result}}).Increment();
  }
  prometheus::Family<prometheus::Counter>& syncs;
  prometheus::Family<prometheus::Counter>& drains;
  prometheus::Counter& gates_held;
  prometheus::Histogram& outside_drain_to_kubernetes;
  prometheus::Gauge& leader;
};

TwoWaySync::TwoWaySync(k8s::Client& client, NodeFeed& feed, NodeDrainer& drainer,
                       common::Clock* clock, TwoWaySyncOptions options,
                       prometheus::Registry& registry)
    : client_(client),
      feed_(feed),
      drainer_(drainer),
      clock_(clock),
      options_(std::move(options)),
      metrics_(std::make_unique<Metrics>(registry)),
      pods_(client, k8s::Pods(), options_.pod_namespace, SlurmdPods()),
      nodes_(client, k8s::Nodes(), "", DrainInputsOfNodes(options_.drain_conditions)),
      node_sets_(client, api::NodeSets(), options_.pod_namespace, {}),
      to_slurm_reconciler_(*this, Direction::kToSlurm),
      to_kubernetes_reconciler_(*this, Direction::kToKubernetes),
      to_slurm_(to_slurm_reconciler_, clock_, RuntimeOptions(Direction::kToSlurm)),
      to_kubernetes_(to_kubernetes_reconciler_, clock_, RuntimeOptions(Direction::kToKubernetes)),
      outage_hold_(client,
                   {.slurm_current = [this] { return feed_.Current(); },
                    .caches_synced = [this] { return Synced(); },
                    .caches_current = [this] { return CachesCurrent(); },
                    .gate_false_pods = [this] { return GateFalseClusterPods(); }},
                   clock_, metrics_->gates_held, {.field_manager = options_.field_manager}),
      leases_(k8s::ApiLeaseClient(client)),
      leadership_(*leases_, clock_,
                  {.enabled = options_.leader_elect,
                   .lease_namespace = options_.lease_namespace,
                   .lease_name = "slurm-syncer",
                   .identity = options_.identity,
                   .leader_gauge = &metrics_->leader},
                  {&to_slurm_, &to_kubernetes_, &outage_hold_.runtime()}) {}

TwoWaySync::~TwoWaySync() { Stop(); }

k8s::ControllerOptions TwoWaySync::RuntimeOptions(Direction direction) {
  return {
      .name = DirectionLabel(direction),
      .workers = options_.workers,
      .caches_synced = [this] { return Synced(); },
      .caches_current = [this] { return CachesCurrent(); },
      .all_keys =
          [this] {
            std::vector<std::string> names;
            for (const slurm::rest::Node& node : feed_.Items()) names.push_back(node.name);
            return names;
          },
      .on_result =
          [this, direction](const std::string& slurm_node,
                            const absl::StatusOr<k8s::ReconcileResult>& result, absl::Duration) {
            if (result.ok()) return;
            metrics_->Count(direction, "error");
            common::LogWarn("sync_failed", {{"slurm_node", slurm_node},
                                            {"direction", DirectionLabel(direction)},
                                            {"error", result.status()}});
          }};
}

absl::StatusOr<k8s::ReconcileResult> TwoWaySync::DirectionReconciler::Reconcile(
    const std::string& slurm_node) {
  if (absl::Status status = sync_.Sync(slurm_node, direction_); !status.ok()) return status;
  return k8s::ReconcileResult{};
}

absl::Status TwoWaySync::Start() {
  WatchPods();
  WatchNodes();
  WatchNodeSets();
  pods_.Start();
  nodes_.Start();
  node_sets_.Start();
  if (absl::Status started = leadership_.Start(); !started.ok()) return started;
  follower_ = std::jthread([this](const std::stop_token& stop) { FollowSlurm(stop); });
  return absl::OkStatus();
}

void TwoWaySync::Stop() {
  if (follower_.joinable()) {
    follower_.request_stop();
    follower_.join();
  }
  leadership_.Stop();  // the workers first, then the lease
  pods_.Stop();
  nodes_.Stop();
  node_sets_.Stop();
}

absl::Status TwoWaySync::CachesCurrent() {
  return k8s::CachesCurrent({&pods_, &nodes_, &node_sets_});
}

bool TwoWaySync::Synced() {
  return pods_.HasSynced() && nodes_.HasSynced() && node_sets_.HasSynced();
}

// Events come also while another replica leads: the controllers drop them then.
void TwoWaySync::Enqueue(const std::string& slurm_node, Urgency urgency) {
  if (slurm_node.empty()) return;
  if (urgency.to_slurm) {
    to_slurm_.EnqueueUrgent(slurm_node);
  } else {
    to_slurm_.Enqueue(slurm_node);
  }
  if (urgency.to_kubernetes) {
    to_kubernetes_.EnqueueUrgent(slurm_node);
  } else {
    to_kubernetes_.Enqueue(slurm_node);
  }
}

const char* TwoWaySync::DirectionLabel(Direction direction) {
  return direction == Direction::kToSlurm ? "to_slurm" : "to_kubernetes";
}

void TwoWaySync::EnqueueAll() {
  to_slurm_.EnqueueAll();
  to_kubernetes_.EnqueueAll();
}

void TwoWaySync::WatchPods() {
  auto on_pod = [this](const absl::StatusOr<PodObservation>& pod, bool gone, bool drain_input) {
    if (!pod.ok() || !OwnedByClusterNodeSet(*pod)) return;
    {
      absl::MutexLock lock(&mutex_);
      if (gone) {
        auto it = slurm_node_on_.find(pod->node_name);
        if (it != slurm_node_on_.end() && it->second == pod->slurm_node) slurm_node_on_.erase(it);
      } else if (!pod->node_name.empty()) {
        slurm_node_on_[pod->node_name] = pod->slurm_node;
      }
    }
    Enqueue(pod->slurm_node, {.to_slurm = drain_input});
  };
  pods_.AddHandlers({
      .on_add = [on_pod](const k8s::CachedObjectPtr& o) { on_pod(ObservePod(*o), false, false); },
      .on_update =
          [on_pod](const k8s::CachedObjectPtr& before, const k8s::CachedObjectPtr& after) {
            const absl::StatusOr<PodObservation> was = ObservePod(*before);
            const absl::StatusOr<PodObservation> is = ObservePod(*after);
            on_pod(is, false, was.ok() && is.ok() && PodDrainInputsDiffer(*was, *is));
          },
      .on_delete = [on_pod](const k8s::CachedObjectPtr& o) { on_pod(ObservePod(*o), true, false); },
  });
}

void TwoWaySync::WatchNodes() {
  auto on_node = [this](const k8s::CachedObjectPtr& object, bool drain_input) {
    std::string slurm_node;
    {
      absl::MutexLock lock(&mutex_);
      auto it = slurm_node_on_.find(object->meta.name);
      if (it != slurm_node_on_.end()) slurm_node = it->second;
    }
    Enqueue(slurm_node, {.to_slurm = drain_input});
  };
  nodes_.AddHandlers({
      .on_add = [on_node](const k8s::CachedObjectPtr& o) { on_node(o, false); },
      .on_update =
          [this, on_node](const k8s::CachedObjectPtr& before, const k8s::CachedObjectPtr& after) {
            absl::StatusOr<NodeObservation> was = ObserveNode(*before);
            absl::StatusOr<NodeObservation> is = ObserveNode(*after);
            on_node(after, was.ok() && is.ok() &&
                               NodeDrainInputsDiffer(*was, *is, options_.drain_conditions));
          },
      .on_delete = [on_node](const k8s::CachedObjectPtr& o) { on_node(o, false); },
  });
}

// A NodeSet made, changed or deleted changes which pods count: the Node map is rebuilt
// from the cached pods and every Slurm node synced again.
void TwoWaySync::WatchNodeSets() {
  auto on_node_set = [this](const k8s::CachedObjectPtr& object, bool gone) {
    absl::StatusOr<tidepool::v1::NodeSet> node_set = api::ParseNodeSet(object->json);
    const bool of_cluster = !gone && node_set.ok() &&
                            (options_.cluster_name.empty() ||
                             node_set->spec().cluster_ref().name() == options_.cluster_name);
    {
      absl::MutexLock lock(&mutex_);
      const bool known = node_set_namespaces_.contains(object->meta.uid);
      if (of_cluster == known) return;
      if (of_cluster) {
        node_set_namespaces_[object->meta.uid] = object->meta.ns;
      } else {
        node_set_namespaces_.erase(object->meta.uid);
      }
    }
    RebuildNodeMap();
    EnqueueAll();
  };
  node_sets_.AddHandlers({
      .on_add = [on_node_set](const k8s::CachedObjectPtr& o) { on_node_set(o, false); },
      .on_update = [on_node_set](const k8s::CachedObjectPtr&,
                                 const k8s::CachedObjectPtr& o) { on_node_set(o, false); },
      .on_delete = [on_node_set](const k8s::CachedObjectPtr& o) { on_node_set(o, true); },
  });
}

void TwoWaySync::RebuildNodeMap() {
  std::map<std::string, std::string> slurm_node_on;
  for (const k8s::CachedObjectPtr& object : pods_.List()) {
    absl::StatusOr<PodObservation> pod = ObservePod(*object);
    if (!pod.ok() || pod->node_name.empty() || !OwnedByClusterNodeSet(*pod)) continue;
    slurm_node_on[pod->node_name] = pod->slurm_node;
  }
  absl::MutexLock lock(&mutex_);
  slurm_node_on_ = std::move(slurm_node_on);
}

bool TwoWaySync::OwnedByClusterNodeSet(const PodObservation& pod) {
  return OwnedByClusterNodeSet(pod.controller_uid, pod.ns);
}

bool TwoWaySync::OwnedByClusterNodeSet(const std::string& controller_uid, const std::string& ns) {
  if (controller_uid.empty()) return false;
  absl::MutexLock lock(&mutex_);
  auto it = node_set_namespaces_.find(controller_uid);
  return it != node_set_namespaces_.end() && it->second == ns;
}

std::vector<api::GateHoldCandidate> TwoWaySync::GateFalseClusterPods() {
  return api::GateFalseCandidates(pods_.List(), [this](const api::PodView& pod) {
    return OwnedByClusterNodeSet(pod.controller_uid, pod.ns);
  });
}

namespace {

// Records the change's OutsideDrainMark; true when it differs from the one recorded before.
bool DrainMarkChanged(const Change<slurm::rest::Node>& change,
                      std::map<std::string, std::string>& marks) {
  const std::string mark = change.type == Change<slurm::rest::Node>::Type::kDeleted
                               ? std::string()
                               : OutsideDrainMark(change.item);
  auto it = marks.find(change.item.name);
  const std::string& before = it == marks.end() ? std::string() : it->second;
  if (mark == before) return false;
  if (mark.empty()) {
    marks.erase(it);
  } else {
    marks[change.item.name] = mark;
  }
  return true;
}

}  // namespace

// Enqueues what the node feed reports changed; everything after an outage (the sync
// stood still meanwhile) and every resync period.
void TwoWaySync::FollowSlurm(const std::stop_token& stop) {
  std::shared_ptr<Subscription<slurm::rest::Node>> subscription = feed_.Subscribe();
  absl::Time next_resync = clock_->Now() + options_.resync_period;
  bool was_unavailable = false;
  // Slurm node → OutsideDrainMark, for the nodes that have one: a change is urgent.
  std::map<std::string, std::string> drain_marks;
  while (!stop.stop_requested()) {
    if (clock_->Now() >= next_resync) {
      EnqueueAll();
      next_resync = clock_->Now() + options_.resync_period;
    }
    std::optional<SharedUpdate<slurm::rest::Node>> update =
        subscription->Next(absl::Milliseconds(200));
    if (!update.has_value()) {
      if (subscription->closed()) subscription = feed_.Subscribe();  // fell behind: snapshot
      continue;
    }
    const FeedUpdate<slurm::rest::Node>& u = **update;
    if (u.kind == FeedUpdate<slurm::rest::Node>::Kind::kUnavailable) {
      was_unavailable = true;
      continue;
    }
    if (was_unavailable) {
      was_unavailable = false;
      EnqueueAll();
    }
    for (const Change<slurm::rest::Node>& change : u.changes) {
      const bool outside_drain = DrainMarkChanged(change, drain_marks);
      if (outside_drain) NoteOutsideDrain(change.item.name, u.observed_at);
      Enqueue(change.item.name, {.to_kubernetes = outside_drain});
    }
  }
  subscription->Close();
}

// What one sync of a Slurm node looks at, from the feed and the informers' caches.
struct TwoWaySync::Observed {
  slurm::rest::Node slurm;
  PodObservation pod;
  std::optional<NodeObservation> node;
};

absl::StatusOr<std::optional<TwoWaySync::Observed>> TwoWaySync::Observe(
    const std::string& slurm_node) {
  // A side we cannot see: change nothing. Whatever makes the sides visible again (sync,
  // recovery) enqueues every node. (Workers run only while leading.)
  if (!Synced() || !feed_.Current().ok()) {
    return std::nullopt;
  }
  std::optional<slurm::rest::Node> slurm = feed_.Get(slurm_node);
  if (!slurm.has_value()) return std::nullopt;
  std::optional<PodObservation> pod;
  for (const k8s::CachedObjectPtr& object : pods_.ListByLabel(api::kSlurmNodeLabel, slurm_node)) {
    absl::StatusOr<PodObservation> candidate = ObservePod(*object);
    if (!candidate.ok()) return candidate.status();
    if (!OwnedByClusterNodeSet(*candidate)) continue;  // labelled alike, not ours: ignored
    pod = *std::move(candidate);
    break;
  }
  if (!pod.has_value()) return std::nullopt;
  Observed observed{.slurm = *std::move(slurm), .pod = *std::move(pod)};
  if (k8s::CachedObjectPtr cached = nodes_.Get(observed.pod.node_name); cached != nullptr) {
    absl::StatusOr<NodeObservation> node = ObserveNode(*cached);
    if (!node.ok()) return node.status();
    observed.node = *std::move(node);
  }
  return observed;
}

absl::Status TwoWaySync::Sync(const std::string& slurm_node, Direction direction) {
  absl::StatusOr<std::optional<Observed>> observed = Observe(slurm_node);
  if (!observed.ok()) return observed.status();
  if (!observed->has_value()) {
    if (direction == Direction::kToKubernetes) ForgetOutsideDrain(slurm_node);
    metrics_->Count(direction, "skipped");
    return absl::OkStatus();
  }
  const Observed& o = **observed;
  const NodeObservation* node = o.node.has_value() ? &*o.node : nullptr;
  absl::Status status = direction == Direction::kToSlurm
                            ? SyncKubernetesToSlurm(o.pod, node, o.slurm)
                            : SyncSlurmToKubernetes(o.pod, node, o.slurm);
  if (status.ok()) metrics_->Count(direction, "ok");
  return status;
}

absl::Status TwoWaySync::SyncKubernetesToSlurm(const PodObservation& pod,
                                               const NodeObservation* node,
                                               const slurm::rest::Node& slurm) {
  const std::optional<std::string> desired =
      DesiredDrainReason(pod, node, options_.drain_conditions);
  const std::optional<DrainRequest> plan = PlanSlurmUpdate(desired, slurm);
  if (!plan.has_value()) return absl::OkStatus();
  absl::StatusOr<DrainOutcome> outcome = drainer_.Apply(*plan, kRequester, ReadBack::kNo);
  if (absl::IsFailedPrecondition(outcome.status())) {
    // Someone changed the node since the last poll; the next poll brings it back here.
    return absl::OkStatus();
  }
  if (!outcome.ok()) return outcome.status();
  const bool drain = plan->action == DrainRequest::Action::kDrain;
  metrics_->drains
      .Add({{"action", drain ? "drain" : "undrain"},
            {"cause", CauseOf(drain ? plan->reason : plan->if_reason)}})
      .Increment();
  return absl::OkStatus();
}

namespace {

// When the readiness gate turns: from then on `kubectl drain` may (or may no longer)
// evict the pod.
void LogEvictability(const PodObservation& pod, const slurm::rest::Node& slurm) {
  const bool in_use = SlurmNodeInUse(slurm);
  auto gate = pod.conditions.find(api::kSlurmNodeInUseCondition);
  const bool was_in_use = gate == pod.conditions.end() || gate->second.status != "False";
  if (gate != pod.conditions.end() && in_use == was_in_use) return;
  common::LogInfo(in_use ? "pod_eviction_blocked" : "pod_eviction_allowed",
                  {{"pod", pod.ns + "/" + pod.name},
                   {"slurm_node", pod.slurm_node},
                   {"slurm_state", slurm.state.ToString()},
                   {"reason", slurm.reason}});
}

}  // namespace

absl::Status TwoWaySync::SyncSlurmToKubernetes(const PodObservation& pod,
                                               const NodeObservation* node,
                                               const slurm::rest::Node& slurm) {
  const absl::Time now = clock_->Now();
  const k8s::ApplyOptions apply{.field_manager = options_.field_manager, .force = true};
  const k8s::WriteOptions write{.field_manager = options_.field_manager};
  // The conditions first: the readiness gate and the Node's drain conditions are what
  // eviction and people act on; the annotations only describe.
  ConditionWrite pod_write = ConditionWrite::kNotNeeded;
  if (std::optional<std::string> body = PodConditionApply(pod, slurm, now); body.has_value()) {
    absl::StatusOr<std::string> r =
        client_.Apply(k8s::Pods(), pod.ns, pod.name, *body, apply, "status");
    if (!r.ok() && !absl::IsNotFound(r.status())) return r.status();
    pod_write = r.ok() ? ConditionWrite::kWritten : ConditionWrite::kGone;
    LogEvictability(pod, slurm);
  }
  std::optional<ConditionWrite> node_write;
  if (node != nullptr) {
    node_write = ConditionWrite::kNotNeeded;
    if (std::optional<std::string> body = NodeConditionsApply(*node, slurm, now);
        body.has_value()) {
      absl::StatusOr<std::string> r =
          client_.Apply(k8s::Nodes(), "", node->name, *body, apply, "status");
      if (!r.ok() && !absl::IsNotFound(r.status())) return r.status();
      node_write = r.ok() ? ConditionWrite::kWritten : ConditionWrite::kGone;
    }
  }
  // A drain that reached neither object (both deleted meanwhile) is not timed as shown.
  if (ShownInKubernetes(pod_write, node_write)) {
    ObserveOutsideDrainWritten(pod.slurm_node);
  } else {
    ForgetOutsideDrain(pod.slurm_node);
  }
  if (std::optional<std::string> patch = PodAnnotationPatch(pod, slurm); patch.has_value()) {
    absl::StatusOr<std::string> r =
        client_.MergePatch(k8s::Pods(), pod.ns, pod.name, *patch, write);
    if (!r.ok() && !absl::IsNotFound(r.status())) return r.status();
  }
  if (node == nullptr) return absl::OkStatus();
  if (std::optional<std::string> patch = NodeAnnotationPatch(*node, slurm); patch.has_value()) {
    absl::StatusOr<std::string> r = client_.MergePatch(k8s::Nodes(), "", node->name, *patch, write);
    if (!r.ok() && !absl::IsNotFound(r.status())) return r.status();
  }
  return absl::OkStatus();
}

void TwoWaySync::NoteOutsideDrain(const std::string& slurm_node, absl::Time poll_started) {
  absl::MutexLock lock(&mutex_);
  // A second change before the first was written: timed from the first.
  outside_drain_seen_.emplace(slurm_node, poll_started);
}

void TwoWaySync::ObserveOutsideDrainWritten(const std::string& slurm_node) {
  std::optional<absl::Time> seen;
  {
    absl::MutexLock lock(&mutex_);
    auto it = outside_drain_seen_.find(slurm_node);
    if (it == outside_drain_seen_.end()) return;
    seen = it->second;
    outside_drain_seen_.erase(it);
  }
  // The poller's clock (absl::Now), not the sync's injectable one.
  metrics_->outside_drain_to_kubernetes.Observe(absl::ToDoubleSeconds(absl::Now() - *seen));
}

void TwoWaySync::ForgetOutsideDrain(const std::string& slurm_node) {
  absl::MutexLock lock(&mutex_);
  outside_drain_seen_.erase(slurm_node);
}

}  // namespace tidepool::syncer

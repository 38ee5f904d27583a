#include "sync.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builders.h"
#include "common/log.h"
#include "k8s/ownership.h"
#include "k8s/resource.h"
#include "observe.h"
#include "plan.h"
#include "status.h"
#include "tidepool/contract.h"
#include "tidepool/feasibility.h"
#include "tidepool/naming.h"
#include "tidepool/node_view.h"
#include "tidepool/resource_types.h"
#include "tidepool/resources.h"

namespace tidepool::nodeset {
namespace {

using k8s::EventType;
using tidepool::v1::NodeSet;

// How soon the next pods of a scale-out larger than one sync's share are created.
constexpr absl::Duration kNextCreatesAfter = absl::Milliseconds(100);

absl::Status EnsureDrainPodsFinalizer(k8s::Client& client, const k8s::CachedObject& node_set,
                                      const std::string& field_manager) {
  absl::StatusOr<std::optional<std::string>> patch =
      k8s::AddFinalizerPatch(node_set.json, api::kDrainPodsFinalizer);
  if (!patch.ok()) return patch.status();
  if (!patch->has_value()) return absl::OkStatus();
  // Conditional on the cached resourceVersion: a stale cache is a conflict, retried.
  return client
      .MergePatch(api::NodeSets(), node_set.meta.ns, node_set.meta.name, **patch,
                  {.field_manager = field_manager})
      .status();
}

absl::Status RemoveDrainPodsFinalizer(k8s::Client& client, const k8s::CachedObject& node_set,
                                      const std::string& field_manager) {
  absl::StatusOr<std::optional<std::string>> patch =
      k8s::RemoveFinalizerPatch(node_set.json, api::kDrainPodsFinalizer);
  if (!patch.ok()) return patch.status();
  if (!patch->has_value()) return absl::OkStatus();
  absl::Status written = client
                             .MergePatch(api::NodeSets(), node_set.meta.ns, node_set.meta.name,
                                         **patch, {.field_manager = field_manager})
                             .status();
  return absl::IsNotFound(written) ? absl::OkStatus() : written;
}

class NodeSetSync {
 public:
  NodeSetSync(const SyncContext& context, k8s::CachedObjectPtr cached, NodeSet node_set)
      : context_(context), cached_(std::move(cached)), node_set_(std::move(node_set)) {}

  absl::StatusOr<SyncResult> Run() {
    if (deleting() && !ClusterPresent()) {
      return ReleaseDeletion(absl::StrCat("SlurmCluster ", node_set_.spec().cluster_ref().name(),
                                          " is gone or being deleted: no Slurm to drain in"));
    }
    if (absl::Status s = Observe(); !s.ok()) return s;
    if (deleting() && input_.pods.empty()) {
      return ReleaseDeletion("every pod went the protected way (drained, deleted once idle)");
    }
    if (deleting()) {
      Event(EventType::kNormal, api::kDrainingForDeletionReason, "Delete",
            absl::StrCat("being deleted: ", input_.pods.size(),
                         " pod(s) left, each deleted once its Slurm node is drained and idle"));
    }
    plan_ = PlanNodeSet(input_);
    LabelNodes();
    const bool scripts_ready = ScriptsConfigMapsPresent();
    if (scripts_ready) CreatePods();
    for (const PodDeletion& deletion : plan_.deletions) {
      // A replacement could not be created: the outdated pod keeps serving its Node.
      if (!scripts_ready && deletion.cause == DeletionCause::kUpdate) continue;
      ProtectedDelete(deletion);
    }
    ClearOurDrains();
    WriteStatus();
    if (!first_error_.ok()) return first_error_;
    SyncResult result;
    if (!plan_.deletions.empty() || plan_.awaiting_replacement > 0 || !scripts_ready) {
      result.requeue_after = context_.wait_requeue;
    }
    if (plan_.creates_deferred > 0) result.requeue_after = kNextCreatesAfter;
    return result;
  }

 private:
  const std::string& ns() const { return cached_->meta.ns; }
  const std::string& name() const { return cached_->meta.name; }
  bool deleting() const { return cached_->meta.deleting; }
  // The SlurmCluster this NodeSet's nodes belong to, as slurm-syncer names it.
  std::string ClusterKey() const {
    return absl::StrCat(ns(), "/", node_set_.spec().cluster_ref().name());
  }

  // The NodeSet's SlurmCluster is in the cache and not being deleted.
  bool ClusterPresent() const {
    k8s::CachedObjectPtr cluster =
        context_.informers.clusters->Get(ns(), node_set_.spec().cluster_ref().name());
    return cluster != nullptr && !cluster->meta.deleting;
  }

  // Lets the API server finish deleting the NodeSet (the garbage collector takes any pods
  // left).
  absl::StatusOr<SyncResult> ReleaseDeletion(const std::string& why) {
    if (absl::Status s =
            RemoveDrainPodsFinalizer(*context_.client, *cached_, context_.field_manager);
        !s.ok())
      return s;
    Event(EventType::kNormal, api::kDeletionReleasedReason, "Delete",
          absl::StrCat("finalizer ", api::kDrainPodsFinalizer, " removed: ", why));
    return SyncResult{};
  }

  absl::Status Observe() {
    absl::StatusOr<std::string> hash = TemplateHash(cached_->json);
    if (!hash.ok()) return hash.status();
    input_.template_hash = *hash;
    // Being deleted: a scale-in to zero, so each pod goes only once drained and idle.
    input_.replicas = deleting() ? std::optional<int>(0)
                      : node_set_.spec().has_replicas()
                          ? std::optional<int>(node_set_.spec().replicas())
                          : std::nullopt;
    input_.strategy = StrategyOf(node_set_);
    input_.name_prefix = api::NamePrefix(node_set_);
    std::vector<NodeSet> siblings = Siblings();
    // No plan from Nodes read without a label it selects by: they would look infeasible.
    if (absl::Status kept = RequireNodeLabels(siblings); !kept.ok()) return kept;
    std::vector<std::string> warnings;
    input_.feasible =
        FeasibleNodesFor(node_set_, std::move(siblings), Nodes(), NodesWithClusterPods(), warnings);
    for (const std::string& warning : warnings) {
      common::LogDebug("node_fits_two_nodesets",
                       {{"nodeset", cached_->meta.Key()}, {"warning", warning}});
    }
    input_.pods = OwnPods();
    input_.max_creates = context_.max_pod_creates_per_sync;
    std::vector<std::string> slurm_names;
    for (const ObservedPod& pod : input_.pods) slurm_names.push_back(pod.name);
    slurm_view_ = context_.slurm->View(slurm_names);
    input_.slurm = &slurm_view_;
    const int desired_for_budget = input_.replicas.has_value()
                                       ? std::min<int>(*input_.replicas, input_.feasible.size())
                                       : static_cast<int>(input_.feasible.size());
    input_.max_unavailable =
        ResolveMaxUnavailable(MaxUnavailableText(node_set_), desired_for_budget);
    return absl::OkStatus();
  }

  // Unavailable while the Node cache relists to keep a label `siblings` select by.
  absl::Status RequireNodeLabels(const std::vector<NodeSet>& siblings) {
    if (context_.node_label_keys == nullptr) return absl::OkStatus();
    api::LabelKeys keys;
    for (const NodeSet& sibling : siblings) keys.merge(api::NodeSetFitLabelKeys(sibling));
    return context_.node_label_keys->Require(keys, *context_.informers.nodes);
  }

  // The NodeSets of the same cluster in this namespace (this one included).
  std::vector<NodeSet> Siblings() {
    std::vector<NodeSet> siblings;
    for (const k8s::CachedObjectPtr& object : context_.informers.node_sets->ListNamespace(ns())) {
      if (object->meta.deleting && object->meta.name != name()) continue;
      absl::StatusOr<NodeSet> parsed = api::ParseNodeSet(object->json);
      if (!parsed.ok()) continue;
      if (parsed->spec().cluster_ref().name() == node_set_.spec().cluster_ref().name()) {
        siblings.push_back(*std::move(parsed));
      }
    }
    return siblings;
  }

  std::vector<SharedNodeInfo> Nodes() {
    std::vector<SharedNodeInfo> nodes;
    for (const k8s::CachedObjectPtr& object : context_.informers.nodes->List()) {
      if (object->meta.deleting) continue;
      // The model its informer read when it stored the Node (parse_view), shared with the
      // cache entry; read here only for a Node cached without it.
      std::shared_ptr<const api::NodeView> view = k8s::SharedViewAs<api::NodeView>(object);
      if (view != nullptr && view->info.ok()) {
        nodes.push_back(SharedNodeInfo(view, &*view->info));
        continue;
      }
      absl::StatusOr<tidepool::v1::NodeInfo> node = api::NodeInfoOf(*object);
      if (node.ok())
        nodes.push_back(std::make_shared<const tidepool::v1::NodeInfo>(*std::move(node)));
    }
    return nodes;
  }

  // Nodes that run a slurmd pod of this cluster (of any of its NodeSets).
  std::set<std::string> NodesWithClusterPods() {
    std::set<std::string> hosting;
    for (const k8s::CachedObjectPtr& object : context_.informers.pods->ListByLabel(
             api::kClusterLabel, node_set_.spec().cluster_ref().name())) {
      if (object->meta.ns != ns() || object->meta.deleting) continue;
      absl::StatusOr<ObservedPod> pod = ObservePod(*object);
      if (pod.ok() && !pod->node_name.empty()) hosting.insert(pod->node_name);
    }
    return hosting;
  }

  // Pods labelled for this NodeSet that it controls (not a namesake's).
  std::vector<ObservedPod> OwnPods() {
    std::vector<ObservedPod> pods;
    for (const k8s::CachedObjectPtr& object :
         context_.informers.pods->ListByLabel(api::kNodeSetLabel, name())) {
      if (object->meta.ns != ns()) continue;
      std::optional<ObservedPod> pod = ObserveControlledPod(*object, cached_->meta.uid);
      if (pod.has_value()) pods.push_back(*std::move(pod));
    }
    return pods;
  }

  void Event(EventType type, absl::string_view reason, absl::string_view action,
             absl::string_view note) {
    absl::StatusOr<k8s::ObjectReference> ref = k8s::ReferenceTo(cached_->json);
    if (ref.ok()) context_.events->Record(*ref, type, reason, action, note);
    common::Log(type == EventType::kWarning ? common::LogLevel::kWarn : common::LogLevel::kInfo,
                "nodeset_event",
                {{"nodeset", cached_->meta.Key()}, {"reason", reason}, {"note", note}});
  }

  void Fail(absl::Status status) {
    if (first_error_.ok()) first_error_ = std::move(status);
  }

  void LabelNodes() {
    for (const NodeLabel& label : plan_.node_labels) {
      absl::StatusOr<std::string> patched = context_.client->MergePatch(
          k8s::Nodes(), "", label.node_name, SlurmNodeLabelPatch(label.slurm_name),
          {.field_manager = context_.field_manager});
      if (!patched.ok()) {
        Event(EventType::kWarning, api::kFailedLabelNodeReason, "Label",
              absl::StrCat("could not label Node ", label.node_name, " ", api::kSlurmNodeLabel, "=",
                           label.slurm_name, ": ", patched.status().message()));
        Fail(patched.status());
      }
    }
  }

  // What every pod takes from the NodeSet's SlurmCluster. A cluster not in the cache (yet)
  // names no image (the template must then) and keeps the generated munge key Secret.
  PodInputs ClusterPodInputs() const {
    const std::string& cluster_name = node_set_.spec().cluster_ref().name();
    PodInputs inputs{.node_set_json = cached_->json,
                     .template_hash = input_.template_hash,
                     .cluster_name = cluster_name,
                     .munge_key_secret = api::MungeKeySecretName(cluster_name),
                     .cluster_domain = context_.cluster_domain};
    k8s::CachedObjectPtr cluster = context_.informers.clusters->Get(ns(), cluster_name);
    if (cluster == nullptr) return inputs;
    absl::StatusOr<tidepool::v1::SlurmCluster> parsed = api::ParseSlurmCluster(cluster->json);
    if (!parsed.ok()) return inputs;
    inputs.compute_image = parsed->spec().images().compute();
    inputs.prolog_config_map = parsed->spec().prolog().config_map();
    inputs.epilog_config_map = parsed->spec().epilog().config_map();
    if (const std::string& named = parsed->spec().auth().munge_key_secret(); !named.empty()) {
      inputs.munge_key_secret = named;
    }
    return inputs;
  }

  // Whether pods may be created or replaced as far as the cluster's prolog and epilog
  // ConfigMaps go. A pod mounting a missing one would wait in ContainerCreating with only a
  // kubelet event to say why; instead nothing is created, the Progressing condition and a
  // Warning event name the ConfigMap, running pods (and their jobs) stay, and the key is
  // looked at again until it appears. Read only when something is to be created.
  bool ScriptsConfigMapsPresent() {
    const bool replacing = std::any_of(
        plan_.deletions.begin(), plan_.deletions.end(),
        [](const PodDeletion& deletion) { return deletion.cause == DeletionCause::kUpdate; });
    if (plan_.creates.empty() && !replacing) return true;
    const PodInputs inputs = ClusterPodInputs();
    const std::pair<const char*, const std::string*> named[] = {
        {"prolog", &inputs.prolog_config_map}, {"epilog", &inputs.epilog_config_map}};
    for (const auto& [field, config_map] : named) {
      if (config_map->empty()) continue;
      absl::StatusOr<std::string> found =
          context_.client->Get(k8s::ConfigMaps(), ns(), *config_map);
      if (found.ok()) continue;
      if (!absl::IsNotFound(found.status())) {
        Fail(found.status());  // unknown: create nothing now, retry with backoff
        return false;
      }
      pod_error_reason_ = api::kScriptsConfigMapMissingReason;
      pod_error_ = absl::StrCat("ConfigMap ", ns(), "/", *config_map, " named in SlurmCluster ",
                                inputs.cluster_name, " spec.", field,
                                ".configMap does not exist; no slurmd pod is created or "
                                "replaced until it does (running pods are kept)");
      Event(EventType::kWarning, api::kScriptsConfigMapMissingReason, "Create", pod_error_);
      return false;
    }
    return true;
  }

  void CreatePods() {
    if (plan_.creates.empty()) return;
    PodInputs inputs = ClusterPodInputs();
    for (const PodToCreate& create : plan_.creates) {
      inputs.slurm_name = create.slurm_name;
      inputs.node_name = create.node_name;
      absl::StatusOr<std::string> pod = BuildPod(inputs);
      if (!pod.ok()) {
        pod_error_ = std::string(pod.status().message());
        Event(EventType::kWarning, api::kFailedCreateReason, "Create",
              absl::StrCat("cannot build pod ", create.slurm_name, ": ", pod_error_));
        return;  // the same error for every pod; the spec must change first
      }
      // The first failure ends this round: the same refusal (a quota, an admission
      // webhook) would likely come for every pod; the key is retried with backoff.
      if (!CreatePod(create, *pod)) return;
    }
  }

  // False when the pod could not be created.
  bool CreatePod(const PodToCreate& create, const std::string& pod) {
    absl::StatusOr<std::string> created =
        context_.client->Create(k8s::Pods(), ns(), pod, {.field_manager = context_.field_manager});
    if (created.ok()) {
      context_.metrics->CountPodCreated();
      Event(EventType::kNormal, api::kSuccessfulCreateReason, "Create",
            absl::StrCat("created pod ", create.slurm_name, " on Node ", create.node_name));
    } else if (!absl::IsAlreadyExists(created.status())) {  // the cache lags our own create
      Event(EventType::kWarning, api::kFailedCreateReason, "Create",
            absl::StrCat("pod ", create.slurm_name, " on Node ", create.node_name, ": ",
                         created.status().message()));
      Fail(created.status());
      return false;
    }
    return true;
  }

  void ProtectedDelete(const PodDeletion& deletion) {
    const char* cause = DeletionCauseName(deletion.cause);
    switch (deletion.step) {
      case DeletionStep::kBlocked:
        Event(EventType::kWarning, api::kDeletionBlockedReason, "Delete",
              absl::StrCat("not deleting pod ", deletion.pod, " (", cause,
                           "): ", slurm_view_.unreachable_reason));
        return;
      case DeletionStep::kDrain:
        RequestDrain(deletion);
        return;
      case DeletionStep::kWaitForJobs:
        Event(EventType::kNormal, api::kWaitingForJobsReason, "Delete",
              absl::StrCat("pod ", deletion.pod, " (", cause,
                           ") waits until the jobs on Slurm node ", deletion.pod, " end"));
        return;
      case DeletionStep::kDelete:
        DeleteIfDrained(deletion);
        return;
    }
  }

  void RequestDrain(const PodDeletion& deletion) {
    const char* reason = DrainReasonFor(deletion.cause);
    absl::StatusOr<tidepool::v1::SlurmNode> node =
        context_.slurm->Drain(ClusterKey(), deletion.pod, reason);
    if (!node.ok()) {
      Event(EventType::kWarning, api::kFailedDrainReason, "Drain",
            absl::StrCat("could not drain Slurm node ", deletion.pod, " (", reason,
                         "): ", node.status().message(), "; pod kept"));
      return;  // retried on the requeue; a drain someone else set also ends in drained
    }
    context_.metrics->CountDrainRequested(DeletionCauseName(deletion.cause));
    Event(EventType::kNormal, api::kDrainRequestedReason, "Drain",
          absl::StrCat("drained Slurm node ", deletion.pod, " (\"", reason,
                       "\"); its pod is deleted once no job runs there"));
  }

  // Deletes only after Slurm itself (not the watch's view) says nothing runs there.
  void DeleteIfDrained(const PodDeletion& deletion) {
    absl::StatusOr<std::optional<tidepool::v1::SlurmNode>> fresh =
        context_.slurm->Fresh(ClusterKey(), deletion.pod);
    if (!fresh.ok()) {
      Event(EventType::kWarning, api::kDeletionBlockedReason, "Delete",
            absl::StrCat("not deleting pod ", deletion.pod, ": ", fresh.status().message()));
      return;
    }
    if (fresh->has_value() && !(*fresh)->drained()) {
      common::LogInfo("delete_deferred", {{"pod", deletion.pod}, {"reason", "not drained now"}});
      return;
    }
    absl::StatusOr<std::string> deleted = context_.client->Delete(
        k8s::Pods(), ns(), deletion.pod, {.precondition_uid = deletion.uid});
    if (!deleted.ok() && !absl::IsNotFound(deleted.status())) {
      Event(EventType::kWarning, api::kFailedDeleteReason, "Delete",
            absl::StrCat("pod ", deletion.pod, ": ", deleted.status().message()));
      Fail(deleted.status());
      return;
    }
    context_.metrics->CountPodDeleted(DeletionCauseName(deletion.cause));
    Event(EventType::kNormal, api::kSuccessfulDeleteReason, "Delete",
          absl::StrCat("deleted pod ", deletion.pod, " (", DeletionCauseName(deletion.cause),
                       fresh->has_value() ? ") after Slurm node drained idle" : ") not in Slurm"));
  }

  void ClearOurDrains() {
    for (const Undrain& undrain : plan_.undrains) {
      absl::StatusOr<tidepool::v1::SlurmNode> node =
          context_.slurm->Undrain(ClusterKey(), undrain.slurm_name, undrain.if_reason);
      if (!node.ok()) {
        Event(EventType::kWarning, api::kFailedUndrainReason, "Undrain",
              absl::StrCat("could not clear \"", undrain.if_reason, "\" on Slurm node ",
                           undrain.slurm_name, ": ", node.status().message()));
        continue;
      }
      context_.metrics->CountUndrain();
      Event(EventType::kNormal, api::kUndrainedReason, "Undrain",
            absl::StrCat("cleared our drain \"", undrain.if_reason, "\" on Slurm node ",
                         undrain.slurm_name, ": its pod is ready and current"));
    }
  }

  void WriteStatus() {
    absl::StatusOr<tidepool::v1::NodeSetStatus> previous = ParseStatus(cached_->json);
    const tidepool::v1::NodeSetStatus status =
        ComputeStatus({.node_set_name = name(),
                       .generation = cached_->meta.generation,
                       .observed = &input_,
                       .plan = &plan_,
                       .pod_error = pod_error_,
                       .pod_error_reason = pod_error_reason_,
                       .previous = previous.ok() ? &*previous : nullptr,
                       .now = context_.clock->Now()});
    if (previous.ok() && SameStatus(status, *previous)) return;
    absl::StatusOr<std::string> written =
        context_.client->MergePatch(api::NodeSets(), ns(), name(), StatusPatch(status),
                                    {.field_manager = context_.field_manager}, "status");
    if (!written.ok() && !absl::IsNotFound(written.status())) Fail(written.status());
  }

  const SyncContext& context_;
  const k8s::CachedObjectPtr cached_;
  const NodeSet node_set_;
  PlanInput input_;
  SlurmView slurm_view_;
  Plan plan_;
  std::string pod_error_;
  std::string pod_error_reason_;
  absl::Status first_error_;
};

}  // namespace

absl::StatusOr<SyncResult> SyncNodeSet(const SyncContext& context, const std::string& key) {
  k8s::CachedObjectPtr cached = context.informers.node_sets->Get(key);
  if (cached == nullptr) return SyncResult{};
  const bool held = k8s::HasFinalizer(cached->json, api::kDrainPodsFinalizer);
  // Deleted without our finalizer (made before it existed, or already released): its pods
  // go with it (ownerReferences; the garbage collector deletes them).
  if (cached->meta.deleting && !held) return SyncResult{};
  absl::StatusOr<NodeSet> node_set = api::ParseNodeSet(cached->json);
  if (node_set.ok() && !cached->meta.deleting && !held) {
    if (absl::Status s = EnsureDrainPodsFinalizer(*context.client, *cached, context.field_manager);
        !s.ok())
      return s;
  }
  if (!node_set.ok() && cached->meta.deleting) {
    // No plan without a spec: let it go (the garbage collector takes its pods).
    common::LogWarn("nodeset_deleted_unreadable", {{"nodeset", key}, {"error", node_set.status()}});
    if (absl::Status s = RemoveDrainPodsFinalizer(*context.client, *cached, context.field_manager);
        !s.ok())
      return s;
    return SyncResult{};
  }
  if (!node_set.ok()) {
    // Nothing to retry until the spec changes (which enqueues the key again).
    common::LogWarn("nodeset_invalid", {{"nodeset", key}, {"error", node_set.status()}});
    absl::StatusOr<k8s::ObjectReference> ref = k8s::ReferenceTo(cached->json);
    if (ref.ok()) {
      context.events->Record(*ref, EventType::kWarning, api::kInvalidSpecReason, "Sync",
                             node_set.status().message());
    }
    return SyncResult{};
  }
  return NodeSetSync(context, std::move(cached), *std::move(node_set)).Run();
}

}  // namespace tidepool::nodeset

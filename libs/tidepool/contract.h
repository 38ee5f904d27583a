#pragma once

// The names Tidepool's services, the node agent and people's tools agree on: labels,
// annotations, condition types, Slurm drain reasons and event reasons. One service writes
// what another reads (the nodeset-controller labels a pod, the syncer and the
// cluster-controller select by it; the syncer drains with a reason, the nodeset-controller
// recognises it), so each name is spelled once, here.

#include <algorithm>
#include <array>

#include "absl/strings/string_view.h"

namespace tidepool::api {

// ---------------------------------------------------------------------------------
// Labels.

// On a Kubernetes Node (and a slurmd pod): its Slurm node name, kept across pod
// re-creation.
inline constexpr char kSlurmNodeLabel[] = "tidepool.dev/slurm-node";
inline constexpr char kClusterLabel[] = "tidepool.dev/cluster";
inline constexpr char kNodeSetLabel[] = "tidepool.dev/nodeset";
// What an object Tidepool made is for: kSlurmdComponent on compute pods,
// kSlurmConfigComponent on the ConfigMap that holds the rendered Slurm configuration.
inline constexpr char kComponentLabel[] = "tidepool.dev/component";
inline constexpr char kSlurmdComponent[] = "slurmd";
inline constexpr char kSlurmConfigComponent[] = "slurm-config";
// The cluster-controller's Secrets and workloads of a cluster's control plane.
inline constexpr char kMungeKeyComponent[] = "munge-key";
inline constexpr char kJwtKeyComponent[] = "jwt-key";
inline constexpr char kSlurmctldComponent[] = "slurmctld";
inline constexpr char kSlurmrestdComponent[] = "slurmrestd";
inline constexpr char kSlurmdbdComponent[] = "slurmdbd";
inline constexpr char kAccountingDatabaseComponent[] = "accounting-database";
inline constexpr char kLoginComponent[] = "login";

// ---------------------------------------------------------------------------------
// Annotations.

// Pod annotations the syncer keeps from Slurm's view of the pod's node.
inline constexpr char kSlurmStateAnnotation[] = "tidepool.dev/slurm-state";
inline constexpr char kSlurmReasonAnnotation[] = "tidepool.dev/slurm-reason";
// Pod annotation: the hash of the NodeSet pod template the pod was made from (rolling
// updates replace pods whose hash is not the current one).
inline constexpr char kTemplateHashAnnotation[] = "tidepool.dev/template-hash";
// Pod annotation: the NodeSet's spec.slurm (JSON) the pod was made with. The render gives
// the pod's Slurm node these attributes until the pod is replaced, so a change of CPUs,
// memory or GRES reaches a node only through the rolling update's drain: Slurm would end
// the jobs of a node that lost cores or GPUs on reconfigure.
inline constexpr char kSlurmAttributesAnnotation[] = "tidepool.dev/slurm-attributes";
// Node annotation with the drain reason while the node's Slurm node is drained.
inline constexpr char kDrainAnnotation[] = "tidepool.dev/drain";
// Node annotation with the reason a person gave when cordoning (Kubernetes has no field
// for it): the drain reason becomes "k8s: cordon: <this>".
inline constexpr char kCordonReasonAnnotation[] = "tidepool.dev/cordon-reason";
// ConfigMap annotation with the rendered configuration's content hash.
inline constexpr char kConfigHashAnnotation[] = "tidepool.dev/config-hash";
// ConfigMap annotation with when the cluster-controller wrote its current files (RFC
// 3339): kept on the object so a new leader knows how long the files have propagated.
inline constexpr char kConfigWrittenAtAnnotation[] = "tidepool.dev/config-written-at";
// Pod annotation (slurmctld and login pods) with the hash of the cluster's users ConfigMap:
// changed when the users change, which makes kubelet refresh the pods' copy at once.
inline constexpr char kUsersHashAnnotation[] = "tidepool.dev/users-hash";
// Pod template annotation (slurmrestd pods) with the digest of the certificate their TLS
// front serves: a new certificate rolls the pods.
inline constexpr char kTlsCertDigestAnnotation[] = "tidepool.dev/tls-cert-digest";
// SlurmCluster annotation: "true" makes the teardown delete the cluster's
// PersistentVolumeClaims too (slurmctld's state, volumeClaimTemplate claims); without it
// they outlive the cluster and keep its jobs' saved state.
inline constexpr char kDeleteClaimsAnnotation[] = "tidepool.dev/delete-claims";
// On objects the cluster-controller applies: the hash of the body it last applied, so an
// unchanged object is not written again on every sync.
inline constexpr char kAppliedHashAnnotation[] = "tidepool.dev/applied-hash";

// Pod annotations the pod-scheduler reads: where and how its placeholder job runs
// (API.md). time-limit is in minutes; exclusive is none|user|ok (Slurm's job share
// modes: no sharing, only with the same user, oversubscribe).
inline constexpr char kPartitionAnnotation[] = "tidepool.dev/partition";
inline constexpr char kAccountAnnotation[] = "tidepool.dev/account";
inline constexpr char kQosAnnotation[] = "tidepool.dev/qos";
inline constexpr char kTimeLimitAnnotation[] = "tidepool.dev/time-limit";
inline constexpr char kExclusiveAnnotation[] = "tidepool.dev/exclusive";
inline constexpr char kReservationAnnotation[] = "tidepool.dev/reservation";
inline constexpr char kCommentAnnotation[] = "tidepool.dev/comment";
// Pod annotations of a pod group (gang): pods sharing the group name (in one namespace)
// become one Slurm job of pod-group-size nodes, placed together or not at all.
inline constexpr char kPodGroupAnnotation[] = "tidepool.dev/pod-group";
inline constexpr char kPodGroupSizeAnnotation[] = "tidepool.dev/pod-group-size";
// Pod annotation the pod-scheduler writes once the pod's placeholder job exists.
inline constexpr char kSlurmJobIdAnnotation[] = "tidepool.dev/slurm-job-id";
// Written with it: the SlurmCluster (<namespace>/<name>) whose Slurm runs that job, so the
// pod scheduler of another cluster never takes the pod for one of its own.
inline constexpr char kSlurmClusterAnnotation[] = "tidepool.dev/slurm-cluster";
// The scheduler name a SlurmCluster's pod scheduler answers to when its
// spec.podScheduler.schedulerName is empty.
inline constexpr char kDefaultPodSchedulerName[] = "tidepool";

// The node agent (tools/node-agent), which plays kubelet in test environments: pod
// annotations a test sets to hold a pod not ready ("false") or its slurmd stopped
// ("stopped"), and the label on the Nodes it simulates.
inline constexpr char kAgentReadyAnnotation[] = "agent.tidepool.dev/ready";
inline constexpr char kAgentSlurmdAnnotation[] = "agent.tidepool.dev/slurmd";
inline constexpr char kAgentSimulatedNodeLabel[] = "agent.tidepool.dev/simulated";

// ---------------------------------------------------------------------------------
// Files.

// Where a slurmd pod has the prolog and epilog runners config-renderer writes into the
// cluster's slurm-config ConfigMap (files kPrologRunnerFile, kEpilogRunnerFile) and
// slurm.conf's Prolog= / Epilog= name: each runs the scripts of the SlurmCluster's
// spec.prolog / spec.epilog ConfigMap in name order (Slurm runs a Prolog= glob's matches
// in reverse name order).
inline constexpr char kHookRunnerDir[] = "/etc/tidepool/hooks";
inline constexpr char kPrologRunnerFile[] = "prolog";
inline constexpr char kEpilogRunnerFile[] = "epilog";

// ---------------------------------------------------------------------------------
// Finalizers.

// On each SlurmCluster whose control plane the cluster-controller runs as pods: held
// until its daemons have stopped in order (login, slurmrestd, slurmctld, slurmdbd, the
// accounting database), so none is killed while another still needs it.
inline constexpr char kTeardownFinalizer[] = "tidepool.dev/teardown";
// On each NodeSet: held while it is deleted until each of its pods went the protected way
// (Slurm node drained, then deleted once idle), as a scale-in to zero; released at once
// when its SlurmCluster is gone or being deleted (no Slurm left to drain in).
inline constexpr char kDrainPodsFinalizer[] = "tidepool.dev/drain-pods";

// ---------------------------------------------------------------------------------
// Condition types.

// Kubernetes' own: a pod's and a Node's readiness.
inline constexpr char kReadyCondition[] = "Ready";
// Kubernetes' own: every container of the pod is ready (Ready without readiness gates).
inline constexpr char kContainersReadyCondition[] = "ContainersReady";
// The pod condition the syncer keeps with the Slurm node's state.
inline constexpr char kSlurmNodeReadyCondition[] = "tidepool.dev/SlurmNodeReady";
// The slurmd pod's readiness gate, kept by the syncer: True while the Slurm node runs
// jobs or may be given some, False once it is drained (or down) and idle. The pod is
// Ready only while it is True, and the cluster's PodDisruptionBudget (maxUnavailable 0,
// unhealthy pods always evictable) lets an eviction (`kubectl drain`) through only then:
// a Node drain waits for Slurm to drain its node and the jobs to end.
inline constexpr char kSlurmNodeInUseCondition[] = "tidepool.dev/SlurmNodeInUse";
// Node conditions the syncer keeps: drained in Slurm (by anyone), drained by a person
// (not by Tidepool), and not responding.
inline constexpr char kSlurmDrainCondition[] = "SlurmDrain";
inline constexpr char kSlurmCordonCondition[] = "SlurmCordon";
inline constexpr char kSlurmNotRespondingCondition[] = "SlurmNotResponding";
// Kubernetes' own, which the pod-scheduler writes (False, with why) on pods it schedules.
inline constexpr char kPodScheduledCondition[] = "PodScheduled";
// The conditions the syncer writes on slurmd pods and on Nodes, by kind.
inline constexpr std::array<absl::string_view, 2> kSyncerPodConditions = {kSlurmNodeReadyCondition,
                                                                          kSlurmNodeInUseCondition};
inline constexpr std::array<absl::string_view, 3> kSyncerNodeConditions = {
    kSlurmDrainCondition, kSlurmCordonCondition, kSlurmNotRespondingCondition};
// The Node and pod condition types Tidepool writes: the only ones whose reason, message
// and transition time it reads (it compares them with what it would write). Views of
// Nodes and pods keep the status alone of the others (the kubelet's).
inline bool IsWrittenByTidepool(absl::string_view condition_type) {
  auto listed = [condition_type](const auto& types) {
    return std::find(types.begin(), types.end(), condition_type) != types.end();
  };
  return listed(kSyncerPodConditions) || listed(kSyncerNodeConditions) ||
         condition_type == kPodScheduledCondition;
}
// SlurmCluster status conditions (with kReadyCondition).
inline constexpr char kConfigRenderedCondition[] = "ConfigRendered";
inline constexpr char kControllerAvailableCondition[] = "ControllerAvailable";
inline constexpr char kRestApiAvailableCondition[] = "RestApiAvailable";
inline constexpr char kAccountingAvailableCondition[] = "AccountingAvailable";
inline constexpr char kLoginAvailableCondition[] = "LoginAvailable";
inline constexpr char kStorageMatchesSpecCondition[] = "StorageMatchesSpec";
// NodeSet status conditions.
inline constexpr char kAvailableCondition[] = "Available";
inline constexpr char kProgressingCondition[] = "Progressing";
inline constexpr char kSlurmUnreachableCondition[] = "SlurmUnreachable";

// ---------------------------------------------------------------------------------
// Slurm drain reasons. Tidepool's start with kTidepoolDrainReasonPrefix; the syncer
// overwrites or clears no other reason (a person's or Slurm's) unless forced.

inline constexpr char kTidepoolDrainReasonPrefix[] = "k8s:";
// The nodeset-controller's: a pod to be removed by scale-in or replaced by an update.
inline constexpr char kScaleInDrainReason[] = "k8s: scale-in";
inline constexpr char kUpdateDrainReason[] = "k8s: update";
// The syncer's (its two-way sync makes and clears only these).
inline constexpr char kPodNotReadyDrainReason[] = "k8s: pod not ready";
inline constexpr char kPodTerminatingDrainReason[] = "k8s: pod terminating";
// Followed by ": <cordon reason>" (kCordonReasonAnnotation, or "cordoned").
inline constexpr char kCordonDrainReasonPrefix[] = "k8s: cordon";
// Followed by the Node condition's type.
inline constexpr char kNodeConditionDrainReasonPrefix[] = "k8s: node condition ";

// ---------------------------------------------------------------------------------
// Event reasons (and condition reasons that say the same).

// cluster-controller.
inline constexpr char kRenderFailedReason[] = "RenderFailed";
inline constexpr char kConfigRenderedReason[] = "ConfigRendered";
inline constexpr char kReconfiguredReason[] = "Reconfigured";
inline constexpr char kSecretCreatedReason[] = "SecretCreated";
inline constexpr char kAuthSecretInvalidReason[] = "AuthSecretInvalid";
inline constexpr char kControllerAppliedReason[] = "ControllerApplied";
inline constexpr char kRestApiAppliedReason[] = "RestApiApplied";
inline constexpr char kAccountingAppliedReason[] = "AccountingApplied";
inline constexpr char kLoginAppliedReason[] = "LoginApplied";
// A claim asked to grow to the size its SlurmCluster field now gives.
inline constexpr char kClaimResizeRequestedReason[] = "ClaimResizeRequested";
// A component the spec no longer asks for (accounting disabled or made external, login
// pods gone): its workloads and Services were deleted, its Secrets and claims kept.
inline constexpr char kComponentRemovedReason[] = "ComponentRemoved";
// LoginAvailable False: the Secret of the login users' keys is missing or unusable, or
// the generated host key Secret is not the cluster's.
inline constexpr char kLoginUsersInvalidReason[] = "LoginUsersInvalid";
inline constexpr char kHostKeysInvalidReason[] = "HostKeysInvalid";
// RestApiAvailable False: the generated Secret "<cluster>-restapi-tls" is not this
// cluster's, lacks a file, or holds a certificate whose key or CA does not verify, that
// does not name the Service, or that expires within 30 days.
inline constexpr char kRestApiTlsInvalidReason[] = "RestApiTlsInvalid";
// The ordered teardown of a SlurmCluster being deleted (Ready False while it runs).
inline constexpr char kTerminatingReason[] = "Terminating";
inline constexpr char kStoppingComponentReason[] = "StoppingComponent";
inline constexpr char kClaimsDeletedReason[] = "ClaimsDeleted";
inline constexpr char kTeardownCompleteReason[] = "TeardownComplete";
// nodeset-controller.
inline constexpr char kInvalidSpecReason[] = "InvalidSpec";
inline constexpr char kApplyFailedReason[] = "ApplyFailed";
inline constexpr char kSuccessfulCreateReason[] = "SuccessfulCreate";
inline constexpr char kFailedCreateReason[] = "FailedCreate";
inline constexpr char kFailedLabelNodeReason[] = "FailedLabelNode";
inline constexpr char kDeletionBlockedReason[] = "DeletionBlocked";
inline constexpr char kWaitingForJobsReason[] = "WaitingForJobs";
inline constexpr char kDrainRequestedReason[] = "DrainRequested";
inline constexpr char kFailedDrainReason[] = "FailedDrain";
inline constexpr char kUndrainedReason[] = "Undrained";
inline constexpr char kFailedUndrainReason[] = "FailedUndrain";
inline constexpr char kSuccessfulDeleteReason[] = "SuccessfulDelete";
inline constexpr char kFailedDeleteReason[] = "FailedDelete";
inline constexpr char kDrainingForDeletionReason[] = "DrainingForDeletion";
inline constexpr char kDeletionReleasedReason[] = "DeletionReleased";
// pod-scheduler (events on the pod; the first is also PodScheduled=False's reason).
inline constexpr char kInvalidPlacementReason[] = "InvalidPlacement";
inline constexpr char kJobSubmittedReason[] = "JobSubmitted";
inline constexpr char kFailedSubmitReason[] = "FailedSubmit";
inline constexpr char kBoundReason[] = "Bound";
inline constexpr char kFailedBindReason[] = "FailedBind";
inline constexpr char kJobEndedReason[] = "JobEnded";
inline constexpr char kJobCancelledReason[] = "JobCancelled";
// A ConfigMap the SlurmCluster names for prolog or epilog scripts does not exist: no
// slurmd pod is created or replaced until it does (a pod would wait in ContainerCreating).
inline constexpr char kScriptsConfigMapMissingReason[] = "ScriptsConfigMapMissing";

}  // namespace tidepool::api

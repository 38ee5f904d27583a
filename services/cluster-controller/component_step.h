#pragma once

// What every step that runs one of a cluster's daemons as pods does the same way
// (slurmctld, slurmrestd, slurmdbd and its database, login): wait for the auth Secrets,
// refuse an invalid spec as InvalidSpec, apply its objects only when changed
// (hashed_applier.h), record an event when it wrote, and read how many pods are ready;
// and when the spec stops asking for the component, delete what it applied
// (component_removal.h) and record ComponentRemoved. A component says only what differs:
// its outcome slot, its checks and its objects.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "claim_resize.h"
#include "hashed_applier.h"
#include "k8s/event_recorder.h"
#include "sync.h"

namespace tidepool::cluster {

// What a component will apply this sync, or why it cannot yet.
struct ComponentPlan {
  // Set: nothing is applied; the condition says `blocked_reason` and `blocked_message`.
  std::string blocked_reason;
  std::string blocked_message;
  std::vector<OwnedObject> objects;  // applied in order
  int replicas = 0;
  // The object whose ready pods the condition counts (one of `objects`).
  k8s::Informer* workload_cache = nullptr;
  std::string workload_name;
  // Ready pods in the workload's cached JSON (a StatefulSet's or a Deployment's).
  int (*ready_replicas_of)(absl::string_view workload_json) = nullptr;
  // For the event: "slurmctld StatefulSet research-controller".
  std::string description;
  // Non-zero: sync again after this long, blocked or not (a component that reads objects
  // no informer watches, such as a user's Secret, notices their changes so).
  absl::Duration recheck_after = absl::ZeroDuration();
};

ComponentPlan Blocked(std::string reason, std::string message,
                      absl::Duration recheck_after = absl::ZeroDuration());

// Secrets a cluster names are read, not watched (the controller may not watch every Secret
// of a namespace): a step waiting on one looks again this often, so creating or fixing it
// is noticed without another change to the cluster.
inline constexpr absl::Duration kSecretRecheck = absl::Seconds(30);

// A claim a component keeps its data on (claim_resize.h), and the cache it shows up in.
struct DataClaim {
  WantedClaim wanted;
  k8s::Informer* cache = nullptr;
};

// One object a component applies, by kind and name (an OwnedObject without its body).
struct OwnedName {
  const k8s::ResourceType* type = nullptr;
  k8s::Informer* cache = nullptr;  // where it shows up
  std::string name;
};

class ComponentStep : public ClusterStep {
 public:
  // Everything passed outlives the step.
  ComponentStep(k8s::Client& client, k8s::EventRecorder& events, std::string field_manager);

  absl::StatusOr<k8s::ReconcileResult> Sync(const ClusterContext& cluster,
                                            ClusterOutcome& outcome) final;

 protected:
  // The slot of the outcome this component fills.
  virtual ComponentOutcome& OutcomeOf(ClusterOutcome& outcome) const = 0;
  // The value of tidepool.dev/component on its pods.
  virtual const char* component() const = 0;
  // The event reason when it applied something.
  virtual const char* applied_reason() const = 0;
  // False: the spec does not ask for this component. Nothing is applied and it has no
  // condition (as for a cluster that never had it, so Ready does not wait for it); what
  // Owns() lists and this cluster controls is deleted.
  virtual bool Wanted(const v1::SlurmCluster& /*spec*/) const { return true; }
  // Every object Plan() may apply for `spec`, in apply order; from names alone (no I/O),
  // since removal must find them without a plan. Sync refuses a plan that applies
  // anything not listed here: it would stay behind when the component is removed.
  virtual std::vector<OwnedName> Owns(const v1::SlurmCluster& spec) const = 0;
  // A spec error (InvalidArgument) the user must fix: InvalidSpec until the spec changes.
  virtual absl::Status Validate(const v1::SlurmCluster& spec) const = 0;
  // What to apply; an error is retried with backoff. Called only for a valid spec whose
  // auth Secrets are ready.
  virtual absl::StatusOr<ComponentPlan> Plan(const v1::SlurmCluster& spec,
                                             const ClusterOutcome& outcome) = 0;
  // Whether the component keeps data on claims; then DataClaims lists them for a valid
  // spec. They follow the spec before anything else, whatever keeps the rest waiting.
  virtual bool KeepsData() const { return false; }
  virtual std::vector<DataClaim> DataClaims(const v1::SlurmCluster& /*spec*/) const { return {}; }

  k8s::Client& client() { return client_; }

 private:
  // Everything but the data claims.
  absl::StatusOr<k8s::ReconcileResult> SyncWanted(const ClusterContext& cluster,
                                                  ClusterOutcome& outcome);
  // The data claims followed (an event for each resize asked; what differs into the
  // outcome); a retry time when a resize failed, else zero.
  absl::Duration FollowDataClaims(const ClusterContext& cluster, const v1::SlurmCluster& spec,
                                  ClusterOutcome& outcome);
  // Not Wanted: deletes the objects of Owns() this cluster controls (an error is retried
  // with backoff).
  absl::StatusOr<k8s::ReconcileResult> RemoveUnwanted(const ClusterContext& cluster,
                                                      const v1::SlurmCluster& spec);
  // InternalError naming the first of `objects` that Owns() does not list.
  absl::Status CheckOwned(const v1::SlurmCluster& spec,
                          const std::vector<OwnedObject>& objects) const;

  k8s::Client& client_;
  k8s::EventRecorder& events_;
  HashedApplier applier_;
  RefusedResizes refused_resizes_;
};

// Ready pods of a StatefulSet (status.readyReplicas) and of a Deployment
// (status.availableReplicas); 0 when the JSON cannot be read.
int ReadyReplicasOfStatefulSet(absl::string_view stateful_set_json);
int AvailableReplicasOfDeployment(absl::string_view deployment_json);

}  // namespace tidepool::cluster

#pragma once

// What a SlurmCluster's ordered teardown does next, from what exists now (pure; the I/O is
// teardown_step.h). Daemons stop in the order that keeps their state: login (users off
// first), slurmrestd, slurmctld (it saves its state on SIGTERM), slurmdbd, then the
// accounting database slurmdbd writes to. One stage at a time: a stage's workloads are
// deleted only once every pod of the stages before it is gone. Then, only when the user
// asked (tidepool.dev/delete-claims: "true"), the cluster's claims go; last the finalizer.
// Level-triggered: the decision depends only on what is observed, so a controller that
// restarts mid-teardown picks up where the last one stopped.

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace tidepool::cluster {

// The tidepool.dev/component values of the teardown's stages, in order.
const std::vector<const char*>& TeardownStages();

// A StatefulSet or Deployment of the cluster (labelled tidepool.dev/cluster).
struct TeardownWorkload {
  std::string kind;  // "StatefulSet" | "Deployment"
  std::string name;
  std::string component;  // its tidepool.dev/component label
  bool deleting = false;  // deletionTimestamp set: already on its way
};

// A pod of the cluster's control plane.
struct TeardownPod {
  std::string name;
  std::string component;
};

struct TeardownObservation {
  std::vector<TeardownWorkload> workloads;
  std::vector<TeardownPod> pods;
  // The cluster's PersistentVolumeClaims that exist and are not being deleted.
  std::vector<std::string> claims;
  bool delete_claims = false;  // the user asked for them to go too
};

enum class TeardownAction {
  kDeleteWorkloads,  // delete `workloads` (the stage's), then wait for its pods
  kWaitForPods,      // the stage's workloads or pods are still going
  kDeleteClaims,     // every stage is done; delete `claims`
  kRemoveFinalizer,  // done: let the API server remove the cluster
};

struct TeardownDecision {
  TeardownAction action = TeardownAction::kRemoveFinalizer;
  std::string stage;  // the component being torn down ("" after the last stage)
  std::vector<TeardownWorkload> workloads;
  std::vector<std::string> claims;
  // For the Ready condition: "waiting for slurmrestd to stop: pod research-restapi-x".
  std::string waiting_for;
};

TeardownDecision NextTeardownAction(const TeardownObservation& observed);

// Whether the annotation value asks for the claims to be deleted ("true", any case).
bool DeleteClaimsRequested(absl::string_view annotation_value);

}  // namespace tidepool::cluster

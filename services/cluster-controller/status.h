#pragma once

// SlurmCluster status from what one sync's steps found (status.cc): observedGeneration,
// configHash, node and partition counts, and the conditions ConfigRendered, the managed
// components' (ControllerAvailable, RestApiAvailable, LoginAvailable), Ready and, with a
// claim of ours, StorageMatchesSpec.
// Pure: outcome and current status in, merge patch out.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "k8s/conditions.h"

namespace tidepool::cluster {

// What the config step found.
struct ConfigOutcome {
  bool rendered = false;
  std::string render_error;   // when not rendered
  std::string rendered_hash;  // the ConfigMap's
  std::string applied_hash;   // what Slurm was last reconfigured with (status.configHash)
  std::string reconfigure_error;
  // Reconfigured, but slurmctld does not show the rendered nodes yet: what differs.
  std::string load_pending;
  int nodes = 0;
  int partitions = 0;
};

// What the auth step found: the Secrets the cluster's daemons mount.
struct AuthOutcome {
  bool ready = false;
  std::string munge_key_secret;  // in the cluster's namespace
  std::string jwt_key_secret;
  std::string error;  // when not ready: which Secret, what is wrong, what to do
};

// What a step found of the daemon it runs as pods (slurmctld, slurmrestd).
struct ComponentOutcome {
  bool managed = false;        // the step ran: the control plane is made of pods
  bool applied = false;        // its objects are as the spec asks
  std::string blocked_reason;  // when not applied: the condition reason
  std::string error;           // when not applied: what is wrong and what to do
  int replicas = 0;
  int ready_replicas = 0;
  std::string pod_selector;  // the daemon's pods' labels, for messages
};

// A claim that differs from its field and stays so (claim_drift.h): the reason of the
// StorageMatchesSpec condition and what to do.
struct StorageNote {
  std::string reason;
  std::string message;
};

// What one sync of a cluster found, step by step (the steps to come add theirs).
struct ClusterOutcome {
  int64_t generation = 0;
  AuthOutcome auth;
  ComponentOutcome controller;           // slurmctld
  ComponentOutcome rest_api;             // slurmrestd
  ComponentOutcome accounting_database;  // the managed MariaDB
  ComponentOutcome accounting;           // slurmdbd
  ComponentOutcome login;                // login pods (sshd)
  ConfigOutcome config;
  // The claims of slurmctld's state and of the managed database, where they differ from
  // the spec.
  std::vector<StorageNote> storage;
  // A component keeping data on claims has a spec too invalid to compare them with.
  bool storage_unchecked = false;
  // A step's error is worth a status write (it says why) before the retry.
  bool report_error = false;
};

// The status the cluster has now.
struct ClusterStatusView {
  std::string config_hash;
  int64_t observed_generation = 0;
  std::map<std::string, k8s::Condition> conditions;
};

ClusterStatusView ReadStatus(const std::string& cluster_json);

// A JSON merge patch of the status subresource (transition times kept while a
// condition's status holds).
std::string StatusPatch(const ClusterOutcome& outcome, const ClusterStatusView& current,
                        absl::Time now);

// True when the patch would change nothing the status already says.
bool StatusUnchanged(const ClusterOutcome& outcome, const ClusterStatusView& current);

}  // namespace tidepool::cluster

#pragma once

// The login step: a cluster's login pods (login_builders.h) when spec.login asks for them,
// once its auth Secrets are there (component_step.h does the applying and the condition
// LoginAvailable). Before applying it makes sure of what the pods mount: the SSH host key
// Secret it generates once and never rewrites (ssh_host_keys.h), the user's sshKeysSecret
// (read and checked, never written) and, without SSSD, the users ConfigMap with every
// user's account (login_users.h), applied first and announced to the running pods that
// mount it. A missing or unusable Secret blocks the step with
// nothing applied. The user's Secret is read with a GET each sync, not watched (an
// informer would cache every Secret of the namespace), so the step syncs again every
// kSecretRecheck (component_step.h) to notice a changed one. When the spec no longer asks for login
// pods, their Deployment and Service are deleted (component_step.h); the host key Secret stays
// (login pods back later present the same key), and so do the users' accounts.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "auth_builders.h"
#include "component_step.h"
#include "hashed_applier.h"

namespace tidepool::cluster {

class LoginStep : public ComponentStep {
 public:
  // Everything passed outlives the step.
  LoginStep(k8s::Client& client, ClusterInformers informers, k8s::EventRecorder& events,
            std::string field_manager);

  const char* name() const override { return "login"; }

 protected:
  ComponentOutcome& OutcomeOf(ClusterOutcome& outcome) const override { return outcome.login; }
  const char* component() const override;
  const char* applied_reason() const override;
  bool Wanted(const v1::SlurmCluster& spec) const override;
  absl::Status Validate(const v1::SlurmCluster& spec) const override;
  std::vector<OwnedName> Owns(const v1::SlurmCluster& spec) const override;
  absl::StatusOr<ComponentPlan> Plan(const v1::SlurmCluster& spec,
                                     const ClusterOutcome& outcome) override;

 private:
  // Creates the host key Secret, or checks the one that already exists.
  absl::StatusOr<SecretVerdict> EnsureHostKeySecret(const v1::SlurmCluster& spec);
  // The users ConfigMap's body, keeping the ids it already gives.
  absl::StatusOr<std::string> UsersConfigMap(const v1::SlurmCluster& spec,
                                             const std::vector<std::string>& users);
  // Applies the users ConfigMap when it changed, then nudges the pods that mount it.
  absl::Status ApplyUsers(const v1::SlurmCluster& spec, const std::vector<std::string>& users);
  // Annotates the cluster's slurmctld and login pods with the users' hash: kubelet then
  // refreshes their copy of the ConfigMap at once instead of at its next periodic sync (a
  // minute or more), and a job of a new user is not refused by a slurmctld that cannot
  // resolve its uid yet. Best effort: kubelet's own sync comes later anyway.
  void NudgeUserPods(const v1::SlurmCluster& spec, absl::string_view users_hash);

  const ClusterInformers informers_;
  const std::string field_manager_;
  HashedApplier users_applier_;
};

}  // namespace tidepool::cluster

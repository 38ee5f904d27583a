#pragma once

// The accounting steps (builders in accounting_builders.h; component_step.h does the
// applying and the condition):
//   AccountingDatabaseStep  the managed MariaDB, when accounting is enabled without
//                           spec.accounting.external: its credentials Secret (generated
//                           once, never regenerated), headless Service and StatefulSet
//   AccountingStep          slurmdbd once its database is applied and its credentials
//                           Secret is usable
// Both together make AccountingAvailable. When the spec stops asking for one (accounting
// disabled; the database also when made external), its workloads and Services go
// (component_step.h); the credentials Secret and the database's claim stay, so a re-enabled
// database opens its kept data with the same password.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "auth_builders.h"
#include "component_step.h"

namespace tidepool::cluster {

class AccountingDatabaseStep : public ComponentStep {
 public:
  // Everything passed outlives the step.
  AccountingDatabaseStep(k8s::Client& client, ClusterInformers informers,
                         k8s::EventRecorder& events, std::string field_manager);

  const char* name() const override { return "accounting-database"; }

 protected:
  ComponentOutcome& OutcomeOf(ClusterOutcome& outcome) const override {
    return outcome.accounting_database;
  }
  const char* component() const override;
  const char* applied_reason() const override;
  bool Wanted(const v1::SlurmCluster& spec) const override;
  absl::Status Validate(const v1::SlurmCluster& spec) const override;
  std::vector<OwnedName> Owns(const v1::SlurmCluster& spec) const override;
  absl::StatusOr<ComponentPlan> Plan(const v1::SlurmCluster& spec,
                                     const ClusterOutcome& outcome) override;
  bool KeepsData() const override { return true; }
  std::vector<DataClaim> DataClaims(const v1::SlurmCluster& spec) const override;

 private:
  // Creates the credentials Secret when absent, or checks the one that already exists
  // (generated_secret.h).
  absl::StatusOr<SecretVerdict> EnsureCredentials(const v1::SlurmCluster& spec);

  const ClusterInformers informers_;
  const std::string field_manager_;
};

class AccountingStep : public ComponentStep {
 public:
  // Everything passed outlives the step.
  AccountingStep(k8s::Client& client, ClusterInformers informers, k8s::EventRecorder& events,
                 std::string field_manager);

  const char* name() const override { return "accounting"; }

 protected:
  ComponentOutcome& OutcomeOf(ClusterOutcome& outcome) const override { return outcome.accounting; }
  const char* component() const override;
  const char* applied_reason() const override;
  bool Wanted(const v1::SlurmCluster& spec) const override;
  absl::Status Validate(const v1::SlurmCluster& spec) const override;
  std::vector<OwnedName> Owns(const v1::SlurmCluster& spec) const override;
  absl::StatusOr<ComponentPlan> Plan(const v1::SlurmCluster& spec,
                                     const ClusterOutcome& outcome) override;

 private:
  const ClusterInformers informers_;
};

}  // namespace tidepool::cluster

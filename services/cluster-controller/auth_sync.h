#pragma once

// The auth step of a cluster's sync: the Secrets holding the cluster's munge key and
// JWT HS256 key. Each is the user's Secret that spec.auth names, read and checked but
// never written, or one the controller generates once and owns ("<cluster>-munge-key",
// "<cluster>-jwt-key"). A generated key is never replaced: an existing Secret is only
// read, and when it cannot be used the status says why and a person decides. Secrets
// are read with a GET each sync, not through an informer, which would cache every
// Secret of the namespace.

#include <string>

#include "absl/status/statusor.h"
#include "auth_builders.h"
#include "k8s/client.h"
#include "k8s/event_recorder.h"
#include "sync.h"

namespace tidepool::cluster {

class AuthStep : public ClusterStep {
 public:
  // Everything passed outlives the step.
  AuthStep(k8s::Client& client, k8s::EventRecorder& events, std::string field_manager);

  const char* name() const override { return "auth"; }
  // Usable Secrets make outcome.auth ready. An unusable one leaves it not ready with the
  // error and returns OK (nothing to retry until someone changes the Secret or the
  // spec); API server failures are returned to be retried.
  absl::StatusOr<k8s::ReconcileResult> Sync(const ClusterContext& cluster,
                                            ClusterOutcome& outcome) override;

 private:
  // The Secret of one key: usable or why not.
  absl::StatusOr<SecretVerdict> EnsureSecret(const ClusterContext& cluster,
                                             const v1::SlurmCluster& spec, const AuthKeyKind& kind);
  absl::StatusOr<SecretVerdict> ReadUserSecret(const v1::SlurmCluster& spec,
                                               const AuthKeyKind& kind);
  // Creates the generated Secret, or checks the one that already exists
  // (generated_secret.h).
  absl::StatusOr<SecretVerdict> EnsureGeneratedKey(const ClusterContext& cluster,
                                                   const v1::SlurmCluster& spec,
                                                   const AuthKeyKind& kind);
  void Event(const ClusterContext& cluster, k8s::EventType type, absl::string_view reason,
             absl::string_view note);

  k8s::Client& client_;
  k8s::EventRecorder& events_;
  const std::string field_manager_;
};

}  // namespace tidepool::cluster

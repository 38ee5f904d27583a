#pragma once

// One GET of an object the served cluster's slurmrestd depends on (its SlurmCluster, JWT
// key Secret, TLS Secret, Service), with the object named in the error.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "k8s/client.h"
#include "k8s/resource.h"

namespace tidepool::syncer {

// The object's JSON; FailedPrecondition "Secret hpc/x-jwt-key not found" when it is
// missing, else the client's error code with "cannot read <kind> <ns>/<name>: …".
absl::StatusOr<std::string> GetClusterObject(k8s::Client& client, const k8s::ResourceType& type,
                                             absl::string_view kind, absl::string_view ns,
                                             absl::string_view name, absl::Duration timeout);

// FailedPrecondition "Secret <secret> <problem>": a Secret the served cluster depends on that
// cannot be used, `problem` a phrase such as k8s::SecretDataValue's.
absl::Status SecretProblem(absl::string_view secret, absl::string_view problem);

}  // namespace tidepool::syncer

#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "grpcpp/support/status.h"

namespace tidepool::common {

// The same code (absl and gRPC share code numbers) and message.
grpc::Status ToGrpcStatus(const absl::Status& status);

// A gRPC call's result as an absl::Status: the same code, the message prefixed with
// `what` (the call, e.g. "slurm-syncer Reconfigure").
absl::Status FromGrpcStatus(const grpc::Status& status, absl::string_view what);

// A status code as a metric label: "ok", "unavailable", "failed_precondition", ….
std::string StatusCodeLabel(absl::StatusCode code);

}  // namespace tidepool::common

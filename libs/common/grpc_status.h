#pragma once

#include <string>

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace tidepool::common {

// The same code (absl and gRPC share code numbers) and message.
grpc::Status ToGrpcStatus(const absl::Status& status);

// A status code as a metric label: "ok", "unavailable", "failed_precondition", ….
std::string StatusCodeLabel(absl::StatusCode code);

}  // namespace tidepool::common

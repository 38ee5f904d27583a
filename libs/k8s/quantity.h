#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tidepool::k8s {

// Kubernetes resource quantities ("64", "500m", "512Gi", "1e3", "1.5G").
// The value in thousandths, rounded up as Kubernetes does: "500m" -> 500, "2" -> 2000.
absl::StatusOr<int64_t> QuantityMilliValue(absl::string_view quantity);
// The value as a whole number, rounded up: "512Mi" -> 536870912, "1500m" -> 2.
absl::StatusOr<int64_t> QuantityValue(absl::string_view quantity);

}  // namespace tidepool::k8s

#include "tidepool/reconfigure_spacing.h"

#include <algorithm>

namespace tidepool::api {

absl::Duration ReconfigureSpacing(int64_t nodes) {
  return std::min(absl::Milliseconds(6) * std::max<int64_t>(nodes, 0), absl::Seconds(60));
}

}  // namespace tidepool::api

#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "prometheus/registry.h"

namespace tidepool::common {

// "config-renderer", "build_info" -> "tidepool_config_renderer_build_info".
std::string MetricName(absl::string_view service, absl::string_view what);

// The registry's metrics in Prometheus text exposition format 0.0.4.
std::string SerializeMetrics(prometheus::Registry& registry);

// Adds the constant gauge tidepool_<service>_build_info{version="…"} 1.
void RegisterBuildInfo(prometheus::Registry& registry, absl::string_view service,
                       absl::string_view version);

}  // namespace tidepool::common

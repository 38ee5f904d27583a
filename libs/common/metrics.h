#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace tidepool::common {

// "config-renderer", "build_info" -> "tidepool_config_renderer_build_info".
std::string MetricName(absl::string_view service, absl::string_view what);

// The registry's metrics in Prometheus text exposition format 0.0.4.
std::string SerializeMetrics(prometheus::Registry& registry);

// Adds the constant gauge tidepool_<service>_build_info{version="…"} 1.
void RegisterBuildInfo(prometheus::Registry& registry, absl::string_view service,
                       absl::string_view version);

// Adds every series of `family` for the cross product of the label values given, at 0:
// a series born at 1 reads to Prometheus as no increase, and an alert on failures needs the
// failure series to exist before the first failure.
using LabelValues = std::vector<std::pair<std::string, std::vector<std::string>>>;
void AddZeroSeries(prometheus::Family<prometheus::Counter>& family, const LabelValues& labels);

// Adds the gauge tidepool_<service>_leader, 0 until the service's Leadership says it
// leads (or runs without leader election); alerts on a controller nobody leads read it.
prometheus::Gauge& RegisterLeaderGauge(prometheus::Registry& registry, absl::string_view service);

}  // namespace tidepool::common

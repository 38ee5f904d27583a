#include "common/metrics.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "prometheus/gauge.h"
#include "prometheus/text_serializer.h"

namespace tidepool::common {

std::string MetricName(absl::string_view service, absl::string_view what) {
  return absl::StrCat("tidepool_", absl::StrReplaceAll(service, {{"-", "_"}}), "_", what);
}

std::string SerializeMetrics(prometheus::Registry& registry) {
  return prometheus::TextSerializer().Serialize(registry.Collect());
}

void RegisterBuildInfo(prometheus::Registry& registry, absl::string_view service,
                       absl::string_view version) {
  prometheus::BuildGauge()
      .Name(MetricName(service, "build_info"))
      .Help("Constant 1, labelled with the running Tidepool version")
      .Register(registry)
      .Add({{"version", std::string(version)}})
      .Set(1);
}

void AddZeroSeries(prometheus::Family<prometheus::Counter>& family, const LabelValues& labels) {
  std::vector<prometheus::Labels> combinations = {{}};
  for (const auto& [name, values] : labels) {
    std::vector<prometheus::Labels> extended;
    for (const prometheus::Labels& partial : combinations) {
      for (const std::string& value : values) {
        prometheus::Labels next = partial;
        next[name] = value;
        extended.push_back(std::move(next));
      }
    }
    combinations = std::move(extended);
  }
  for (const prometheus::Labels& series : combinations) family.Add(series);
}

prometheus::Gauge& RegisterLeaderGauge(prometheus::Registry& registry, absl::string_view service) {
  return prometheus::BuildGauge()
      .Name(MetricName(service, "leader"))
      .Help("1 while this replica leads (holds the Lease, or runs without leader election)")
      .Register(registry)
      .Add({});
}

}  // namespace tidepool::common

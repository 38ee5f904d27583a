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

}  // namespace tidepool::common

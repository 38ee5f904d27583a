#include "common/metrics.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::common {
namespace {

TEST_CASE("MetricName prefixes tidepool and the service with underscores") {
  CHECK(MetricName("config-renderer", "render_seconds") ==
        "tidepool_config_renderer_render_seconds");
}

TEST_CASE("SerializeMetrics exposes build info in text format") {
  prometheus::Registry registry;
  RegisterBuildInfo(registry, "slurm-syncer", "1.2.3");
  const std::string text = SerializeMetrics(registry);
  CHECK(text.find("# TYPE tidepool_slurm_syncer_build_info gauge") != std::string::npos);
  CHECK(text.find("tidepool_slurm_syncer_build_info{version=\"1.2.3\"} 1") != std::string::npos);
}

}  // namespace
}  // namespace tidepool::common

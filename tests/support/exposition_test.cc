#include "support/exposition.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::testing {
namespace {

constexpr char kText[] =
    "# HELP tidepool_x_total Things (tidepool_x_total 9 in the help text)\n"
    "# TYPE tidepool_x_total counter\n"
    "tidepool_x_total 3\n"
    "tidepool_x_total_more 8\n"
    "tidepool_nodes{cluster=\"a\",state=\"idle\"} 4\n"
    "tidepool_nodes{cluster=\"a\",state=\"mixed\"} 1\n";

TEST_CASE("SampleValue reads a sample line, not help text or a longer name") {
  CHECK(SampleValue(kText, "tidepool_x_total") == "3");
  CHECK(SampleValue(kText, "tidepool_x") == "");
  CHECK(SampleValue(kText, "tidepool_nodes", "state=\"mixed\"") == "1");
  CHECK(SampleValue(kText, "tidepool_nodes", "cluster=\"a\"") == "4");  // the first
  CHECK(SampleValue(kText, "tidepool_nodes", "state=\"down\"") == "");
  CHECK(SampleValue(kText, "tidepool_nodes") == "");  // no unlabelled series
  CHECK(SampleValue(kText, "tidepool_x_total", "state=\"idle\"") == "");
}

}  // namespace
}  // namespace tidepool::testing

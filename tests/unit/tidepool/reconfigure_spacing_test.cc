#include "tidepool/reconfigure_spacing.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::api {
namespace {

TEST_CASE("reconfigures of a large cluster are spaced by its size") {
  CHECK(ReconfigureSpacing(100) == absl::Milliseconds(600));
  CHECK(ReconfigureSpacing(5000) == absl::Seconds(30));
  CHECK(ReconfigureSpacing(10000) == absl::Seconds(60));  // the cap
  CHECK(ReconfigureSpacing(0) == absl::ZeroDuration());
  CHECK(ReconfigureSpacing(-1) == absl::ZeroDuration());
}

}  // namespace
}  // namespace tidepool::api

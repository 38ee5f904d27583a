#include "node_poller.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::syncer {
namespace {

absl::Time At(double seconds) {
  return absl::FromUnixSeconds(1'800'000'000) + absl::Seconds(seconds);
}

TEST_CASE("the next update_time steps back a second while a change may share the stamp") {
  // The reply stamped second 10 came from a fetch begun in second 10: a change later in
  // that second would carry stamp 10 too, so ask from 9.
  CHECK(IncrementalSince(At(10), At(10.4)) == At(9));
  // Clocks apart the other way round make no difference: still the same or an earlier second.
  CHECK(IncrementalSince(At(10), At(9.8)) == At(9));
  // The fetch began a later second: any later change has a later stamp.
  CHECK(IncrementalSince(At(10), At(11.1)) == At(10));
}

}  // namespace
}  // namespace tidepool::syncer

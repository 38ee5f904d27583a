#include "outage_gate_hold.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::syncer {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1'800'000'000);
constexpr absl::Duration kGrace = absl::Seconds(10);

TEST_CASE("gates are held once Slurm has been out of sight at every look for the grace") {
  OutageClock clock;
  CHECK_FALSE(clock.Observe(true, kT0, kGrace));
  CHECK_FALSE(clock.out_of_sight());
  // Out of sight from the first look that found it so, not from the last good one.
  CHECK_FALSE(clock.Observe(false, kT0 + absl::Seconds(30), kGrace));
  CHECK(clock.out_of_sight());
  CHECK_FALSE(clock.Observe(false, kT0 + absl::Seconds(39), kGrace));
  CHECK(clock.Observe(false, kT0 + absl::Seconds(40), kGrace));
  CHECK(clock.Observe(false, kT0 + absl::Seconds(90), kGrace));
  // Back in sight: released at once; a new outage counts from its own start.
  CHECK_FALSE(clock.Observe(true, kT0 + absl::Seconds(91), kGrace));
  CHECK_FALSE(clock.out_of_sight());
  CHECK_FALSE(clock.Observe(false, kT0 + absl::Seconds(92), kGrace));
  CHECK_FALSE(clock.Observe(false, kT0 + absl::Seconds(101), kGrace));
  CHECK(clock.Observe(false, kT0 + absl::Seconds(102), kGrace));
}

TEST_CASE("one good look in between starts the outage again") {
  OutageClock clock;
  CHECK_FALSE(clock.Observe(false, kT0, kGrace));
  CHECK_FALSE(clock.Observe(true, kT0 + absl::Seconds(8), kGrace));
  CHECK_FALSE(clock.Observe(false, kT0 + absl::Seconds(12), kGrace));
  CHECK_FALSE(clock.Observe(false, kT0 + absl::Seconds(21), kGrace));
  CHECK(clock.Observe(false, kT0 + absl::Seconds(22), kGrace));
}

}  // namespace
}  // namespace tidepool::syncer

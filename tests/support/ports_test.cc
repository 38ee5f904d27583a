// FreeLoopbackPort never gives one port twice: tests start services with two ports
// each, and the kernel may hand a just-closed port out again.
#include "support/ports.h"

#include <catch2/catch_test_macros.hpp>
#include <cstdint>

#include "absl/container/flat_hash_set.h"

namespace tidepool::testing {
namespace {

TEST_CASE("free loopback ports are distinct within a process") {
  // With ~28,000 ephemeral ports, 2,000 kernel picks repeat one almost surely.
  absl::flat_hash_set<uint16_t> seen;
  for (int i = 0; i < 2000; ++i) {
    absl::StatusOr<uint16_t> port = FreeLoopbackPort();
    REQUIRE(port.ok());
    CHECK(*port != 0);
    REQUIRE(seen.insert(*port).second);
  }
}

TEST_CASE("an occupied port is not given as free") {
  absl::StatusOr<OccupiedPort> occupied = OccupiedPort::Bind();
  REQUIRE(occupied.ok());
  for (int i = 0; i < 200; ++i) {
    absl::StatusOr<uint16_t> port = FreeLoopbackPort();
    REQUIRE(port.ok());
    CHECK(*port != occupied->port());
  }
}

}  // namespace
}  // namespace tidepool::testing

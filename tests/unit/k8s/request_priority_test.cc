#include "k8s/request_priority.h"

#include <catch2/catch_test_macros.hpp>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "common/clock.h"
#include "k8s/client.h"
#include "k8s/resource.h"

namespace tidepool::k8s {
namespace {

TEST_CASE("an urgent-requests scope holds for its thread only and restores the outer one") {
  CHECK_FALSE(UrgentRequests::Active());
  {
    const UrgentRequests urgent(true);
    CHECK(UrgentRequests::Active());
    bool other_thread = true;
    std::thread([&] { other_thread = UrgentRequests::Active(); }).join();
    CHECK_FALSE(other_thread);
    {
      const UrgentRequests routine(false);
      CHECK_FALSE(UrgentRequests::Active());
    }
    CHECK(UrgentRequests::Active());
  }
  CHECK_FALSE(UrgentRequests::Active());
}

// Nothing listens on port 1: each call fails at once, after its token.
Client OneRequestPerSecond(common::FakeClock* clock) {
  ClientConfig config;
  config.server = "https://127.0.0.1:1";
  config.qps = 1;
  config.burst = 1;
  return Client(config, clock);
}

TEST_CASE("urgent requests take tokens from their own bucket, not behind routine reservations") {
  common::FakeClock clock;
  Client client = OneRequestPerSecond(&clock);
  // The routine bucket is spent and three more routine requests have reserved tokens.
  for (int i = 0; i < 4; ++i) client.rate_limiter().Reserve();
  {
    const UrgentRequests urgent(true);
    CHECK_FALSE(client.Get(Pods(), "ns", "a").ok());
  }
  CHECK(clock.Sleeps().empty());  // the urgent request did not wait
  CHECK_FALSE(client.Get(Pods(), "ns", "b").ok());
  REQUIRE(clock.Sleeps().size() == 1);
  CHECK(clock.Sleeps()[0] == absl::Seconds(4));  // a routine one waits its turn
}

}  // namespace
}  // namespace tidepool::k8s

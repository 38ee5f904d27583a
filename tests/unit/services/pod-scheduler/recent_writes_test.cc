#include "recent_writes.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::podsched {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

TEST_CASE("a write is taken as done for a while, per target") {
  RecentWrites writes(absl::Seconds(30));
  CHECK_FALSE(writes.Find("bind/uid-1", kNow).has_value());
  writes.Note("bind/uid-1", "node-a", kNow);
  CHECK(writes.Find("bind/uid-1", kNow + absl::Seconds(29)) == "node-a");
  CHECK_FALSE(writes.Find("bind/uid-2", kNow).has_value());  // a pod of that name made again
  CHECK_FALSE(writes.Find("bind/uid-1", kNow + absl::Seconds(30)).has_value());
}

TEST_CASE("old writes are dropped as new ones come") {
  RecentWrites writes(absl::Seconds(30));
  writes.Note("bind/uid-1", "node-a", kNow);
  writes.Note("bind/uid-2", "node-b", kNow + absl::Minutes(1));
  CHECK_FALSE(writes.Find("bind/uid-1", kNow).has_value());  // pruned, whatever the time asked
  CHECK(writes.Find("bind/uid-2", kNow + absl::Minutes(1)) == "node-b");
}

}  // namespace
}  // namespace tidepool::podsched

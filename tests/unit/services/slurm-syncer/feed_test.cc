#include "feed.h"

#include <catch2/catch_test_macros.hpp>
#include <string>

#include "absl/strings/match.h"

namespace tidepool::syncer {
namespace {

struct Item {
  std::string name;
  int value = 0;
  bool operator==(const Item&) const = default;
};

using TestFeed = Feed<std::string, Item>;
using Kind = FeedUpdate<Item>::Kind;
using Type = Change<Item>::Type;

TestFeed NewFeed(size_t capacity = 8) {
  return TestFeed([](const Item& item) { return item.name; }, capacity);
}

SharedUpdate<Item> RequireNext(Subscription<Item>& subscription) {
  std::optional<SharedUpdate<Item>> next = subscription.Next(absl::ZeroDuration());
  REQUIRE(next.has_value());
  return *next;
}

absl::Time T(int seconds) { return absl::FromUnixSeconds(1'800'000'000 + seconds); }

TEST_CASE("DiffByKey reports additions, modifications and deletions in key order") {
  const std::map<std::string, Item> before = {{"a", {"a", 1}}, {"b", {"b", 2}}, {"c", {"c", 3}}};
  const std::map<std::string, Item> after = {{"b", {"b", 2}}, {"c", {"c", 4}}, {"d", {"d", 5}}};
  const std::vector<Change<Item>> changes = DiffByKey(before, after);
  REQUIRE(changes.size() == 3);
  CHECK((changes[0].type == Type::kDeleted && changes[0].item == Item{"a", 1}));
  CHECK((changes[1].type == Type::kModified && changes[1].item == Item{"c", 4}));
  CHECK((changes[2].type == Type::kAdded && changes[2].item == Item{"d", 5}));
  CHECK(DiffByKey(after, after).empty());
}

TEST_CASE("a subscriber before the first poll gets the first view as its snapshot") {
  TestFeed feed = NewFeed();
  auto subscription = feed.Subscribe();
  CHECK_FALSE(subscription->Next(absl::ZeroDuration()).has_value());
  feed.Apply({{"b", 2}, {"a", 1}}, T(1));
  SharedUpdate<Item> snapshot = RequireNext(*subscription);
  CHECK(snapshot->kind == Kind::kSnapshot);
  REQUIRE(snapshot->changes.size() == 2);
  CHECK(snapshot->changes[0].item.name == "a");
  CHECK(snapshot->observed_at == T(1));
}

TEST_CASE("later subscribers get the current view, then only what changes") {
  TestFeed feed = NewFeed();
  feed.Apply({{"a", 1}, {"b", 2}}, T(1));
  auto subscription = feed.Subscribe();
  CHECK(RequireNext(*subscription)->changes.size() == 2);
  CHECK(feed.Apply({{"a", 1}, {"b", 2}}, T(2)).empty());
  CHECK_FALSE(subscription->Next(absl::ZeroDuration()).has_value());  // nothing changed
  feed.Apply({{"a", 1}, {"b", 3}}, T(3));
  SharedUpdate<Item> changes = RequireNext(*subscription);
  CHECK(changes->kind == Kind::kChanges);
  REQUIRE(changes->changes.size() == 1);
  CHECK(changes->changes[0].item == Item{"b", 3});
}

TEST_CASE("an outage is told once, and recovery publishes what changed meanwhile") {
  TestFeed feed = NewFeed();
  feed.Apply({{"a", 1}}, T(1));
  auto subscription = feed.Subscribe();
  RequireNext(*subscription);
  feed.MarkUnavailable("connection refused", T(2));
  feed.MarkUnavailable("certificate not trusted", T(3));
  SharedUpdate<Item> down = RequireNext(*subscription);
  CHECK(down->kind == Kind::kUnavailable);
  CHECK(down->unavailable_reason == "connection refused");
  CHECK_FALSE(subscription->Next(absl::ZeroDuration()).has_value());
  // Told once; readiness says the latest cause.
  CHECK(feed.unavailable_reason() == "certificate not trusted");
  CHECK(absl::StrContains(feed.Current().message(), "certificate not trusted"));
  CHECK(feed.Items().size() == 1);  // the view is kept

  SECTION("with changes") {
    feed.Apply({{"a", 2}}, T(4));
    SharedUpdate<Item> back = RequireNext(*subscription);
    CHECK(back->kind == Kind::kChanges);
    REQUIRE(back->changes.size() == 1);
    CHECK(back->changes[0].item == Item{"a", 2});
  }
  SECTION("without changes: an empty update says the view is current again") {
    feed.Apply({{"a", 1}}, T(4));
    SharedUpdate<Item> back = RequireNext(*subscription);
    CHECK(back->kind == Kind::kChanges);
    CHECK(back->changes.empty());
  }
  CHECK_FALSE(feed.unavailable_reason().has_value());
}

TEST_CASE("a subscriber joining during an outage gets the stale snapshot and the notice") {
  TestFeed feed = NewFeed();
  feed.Apply({{"a", 1}}, T(1));
  feed.MarkUnavailable("timeout", T(2));
  auto subscription = feed.Subscribe();
  CHECK(RequireNext(*subscription)->kind == Kind::kSnapshot);
  CHECK(RequireNext(*subscription)->kind == Kind::kUnavailable);
}

TEST_CASE("a subscriber that falls behind is closed as overflowed, others go on") {
  TestFeed feed = NewFeed(/*capacity=*/2);
  feed.Apply({{"a", 0}}, T(0));
  auto slow = feed.Subscribe();
  auto fast = feed.Subscribe();
  for (int i = 1; i <= 3; ++i) {
    feed.Apply({{"a", i}}, T(i));
    RequireNext(*fast);
  }
  CHECK(slow->overflowed());
  CHECK(slow->closed());
  CHECK_FALSE(slow->Next(absl::ZeroDuration()).has_value());
  CHECK_FALSE(fast->overflowed());
  CHECK(feed.subscriber_count() == 1);
}

TEST_CASE("Reset forgets the view so the next Apply is a first snapshot again") {
  TestFeed feed = NewFeed();
  feed.Apply({{"a", 1}}, T(1));
  feed.Reset();
  CHECK_FALSE(feed.synced());
  CHECK(feed.Items().empty());
  auto subscription = feed.Subscribe();
  feed.Apply({{"a", 1}}, T(2));
  CHECK(RequireNext(*subscription)->kind == Kind::kSnapshot);
}

TEST_CASE("CloseAll ends every subscription") {
  TestFeed feed = NewFeed();
  auto subscription = feed.Subscribe();
  feed.CloseAll();
  CHECK(subscription->closed());
  CHECK_FALSE(subscription->overflowed());
}

}  // namespace
}  // namespace tidepool::syncer

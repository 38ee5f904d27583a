#include "k8s/workqueue.h"

#include <catch2/catch_test_macros.hpp>
#include <string>
#include <thread>
#include <vector>

namespace tidepool::k8s {
namespace {

TEST_CASE("a key is queued once however often it is added") {
  common::FakeClock clock;
  WorkQueue queue(&clock);
  queue.Add("a");
  queue.Add("b");
  queue.Add("a");
  CHECK(queue.Len() == 2);
  CHECK(queue.TryGet() == "a");
  CHECK(queue.TryGet() == "b");
  CHECK(queue.TryGet() == std::nullopt);
}

TEST_CASE("a key added while processed is handed out again only after Done") {
  common::FakeClock clock;
  WorkQueue queue(&clock);
  queue.Add("a");
  REQUIRE(queue.TryGet() == "a");
  queue.Add("a");
  queue.Add("a");
  CHECK(queue.TryGet() == std::nullopt);  // not twice at once
  queue.Done("a");
  CHECK(queue.TryGet() == "a");
  queue.Done("a");
  CHECK(queue.TryGet() == std::nullopt);
}

TEST_CASE("urgent keys are handed out before the others, first come first out") {
  common::FakeClock clock;
  WorkQueue queue(&clock);
  for (const char* key : {"a", "b", "c", "d"}) queue.Add(key);
  queue.AddUrgent("x");
  queue.AddUrgent("c");  // queued already: moves ahead, once
  queue.AddUrgent("x");
  queue.Add("x");
  CHECK(queue.Len() == 5);
  std::vector<std::string> order;
  while (std::optional<std::string> key = queue.TryGet()) order.push_back(*key);
  CHECK(order == std::vector<std::string>{"x", "c", "a", "b", "d"});
}

TEST_CASE(
    "a key moved ahead is handed out once, from the urgent lane, and queues routinely after") {
  common::FakeClock clock;
  WorkQueue queue(&clock);
  for (const char* key : {"a", "b", "c"}) queue.Add(key);
  queue.AddUrgent("b");
  CHECK(queue.Len() == 3);
  Lane lane = Lane::kRoutine;
  REQUIRE(queue.TryGet(&lane) == "b");
  CHECK(lane == Lane::kUrgent);
  queue.Add("b");  // routine now: behind c, and its old place does not count
  CHECK(queue.Len() == 2);
  queue.Done("b");
  std::vector<std::string> order;
  while (std::optional<std::string> key = queue.TryGet(&lane)) {
    CHECK(lane == Lane::kRoutine);
    order.push_back(*key);
    queue.Done(*key);
  }
  CHECK(order == std::vector<std::string>{"a", "c", "b"});
  CHECK(queue.Len() == 0);
}

TEST_CASE("a key made urgent while processed is handed out first after Done") {
  common::FakeClock clock;
  WorkQueue queue(&clock);
  queue.Add("a");
  REQUIRE(queue.TryGet() == "a");
  queue.Add("b");
  queue.AddUrgent("a");
  CHECK(queue.TryGet() == "b");  // not twice at once
  queue.Done("a");
  queue.Add("c");
  CHECK(queue.TryGet() == "a");
  queue.Done("a");
  queue.Add("a");  // routine again: behind c
  CHECK(queue.TryGet() == "c");
  CHECK(queue.TryGet() == "a");
}

TEST_CASE("AddAfter waits on the injected clock; the earliest due time wins") {
  common::FakeClock clock;
  WorkQueue queue(&clock);
  queue.AddAfter("late", absl::Seconds(10));
  queue.AddAfter("soon", absl::Seconds(5));
  queue.AddAfter("soon", absl::Seconds(8));  // already due sooner: ignored
  queue.AddAfter("late", absl::Seconds(3));  // sooner: moves up
  queue.AddAfter("now", absl::ZeroDuration());
  CHECK(queue.TryGet() == "now");
  CHECK(queue.TryGet() == std::nullopt);
  clock.Advance(absl::Seconds(3));
  CHECK(queue.TryGet() == "late");
  clock.Advance(absl::Seconds(2));
  CHECK(queue.TryGet() == "soon");
  clock.Advance(absl::Seconds(100));
  CHECK(queue.TryGet() == std::nullopt);
}

TEST_CASE("per-key exponential backoff, capped, reset by Forget") {
  common::FakeClock clock;
  WorkQueue queue(&clock,
                  {.base_delay = absl::Milliseconds(5), .max_delay = absl::Seconds(1), .qps = 0});
  CHECK(queue.NextDelay("a") == absl::Milliseconds(5));
  CHECK(queue.NextDelay("a") == absl::Milliseconds(10));
  CHECK(queue.NextDelay("a") == absl::Milliseconds(20));
  CHECK(queue.NextDelay("b") == absl::Milliseconds(5));  // per key
  CHECK(queue.NumRequeues("a") == 3);
  for (int i = 0; i < 100; ++i) (void)queue.NextDelay("a");
  CHECK(queue.NextDelay("a") == absl::Seconds(1));
  queue.Forget("a");
  CHECK(queue.NumRequeues("a") == 0);
  CHECK(queue.NextDelay("a") == absl::Milliseconds(5));
}

TEST_CASE("the overall bucket limits retries of many keys") {
  common::FakeClock clock;
  WorkQueue queue(&clock, {.base_delay = absl::Milliseconds(1), .qps = 10, .burst = 2});
  CHECK(queue.NextDelay("k1") == absl::Milliseconds(1));
  CHECK(queue.NextDelay("k2") == absl::Milliseconds(1));
  CHECK(queue.NextDelay("k3") == absl::Milliseconds(100));
  CHECK(queue.NextDelay("k4") == absl::Milliseconds(200));
}

TEST_CASE("AddRateLimited requeues after the backoff") {
  common::FakeClock clock;
  WorkQueue queue(&clock, {.base_delay = absl::Seconds(1), .qps = 0});
  queue.AddRateLimited("a");
  CHECK(queue.TryGet() == std::nullopt);
  clock.Advance(absl::Seconds(1));
  CHECK(queue.TryGet() == "a");
  queue.Done("a");
  queue.AddRateLimited("a");
  clock.Advance(absl::Seconds(1));
  CHECK(queue.TryGet() == std::nullopt);
  clock.Advance(absl::Seconds(1));
  CHECK(queue.TryGet() == "a");
}

TEST_CASE("Get blocks until a key comes or the queue shuts down") {
  WorkQueue queue(common::RealClock());
  std::optional<std::string> got;
  std::thread worker([&] { got = queue.Get(); });
  queue.Add("x");
  worker.join();
  CHECK(got == "x");
  queue.Done("x");

  std::thread waiter([&] { got = queue.Get(); });
  queue.ShutDown();
  waiter.join();
  CHECK(got == std::nullopt);
  queue.Add("y");
  CHECK(queue.Len() == 0);
  CHECK(queue.shutting_down());
}

TEST_CASE("Get wakes for a delayed key on the real clock") {
  WorkQueue queue(common::RealClock());
  const absl::Time start = absl::Now();
  queue.AddAfter("d", absl::Milliseconds(50));
  CHECK(queue.Get() == "d");
  CHECK(absl::Now() - start >= absl::Milliseconds(50));
}

}  // namespace
}  // namespace tidepool::k8s

#include "common/keyed_mutex.h"

#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <memory>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"

namespace tidepool::common {
namespace {

TEST_CASE("one key's holders run one at a time") {
  KeyedMutex locks;
  std::atomic<int> inside{0};
  std::atomic<bool> overlapped{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        KeyedMutex::Lock lock(locks, "n-01");
        if (++inside > 1) overlapped = true;
        std::this_thread::yield();
        --inside;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK_FALSE(overlapped);
  CHECK(locks.KeysInUse() == 0);  // nothing kept once no one holds it
}

TEST_CASE("different keys do not wait for each other") {
  KeyedMutex locks;
  KeyedMutex::Lock held(locks, "n-01");
  absl::Notification other_done;
  std::thread other([&] {
    KeyedMutex::Lock lock(locks, "n-02");
    other_done.Notify();
  });
  CHECK(other_done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  other.join();
  CHECK(locks.KeysInUse() == 1);
}

TEST_CASE("a waiter gets the key once its holder lets go") {
  KeyedMutex locks;
  auto held = std::make_unique<KeyedMutex::Lock>(locks, "n-01");
  absl::Notification got;
  std::thread waiter([&] {
    KeyedMutex::Lock lock(locks, "n-01");
    got.Notify();
  });
  CHECK_FALSE(got.WaitForNotificationWithTimeout(absl::Milliseconds(100)));
  held.reset();
  CHECK(got.WaitForNotificationWithTimeout(absl::Seconds(10)));
  waiter.join();
  CHECK(locks.KeysInUse() == 0);
}

}  // namespace
}  // namespace tidepool::common

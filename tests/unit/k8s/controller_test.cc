#include "k8s/controller.h"

#include <algorithm>
#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/clock.h"
#include "k8s/request_priority.h"
#include "support/eventually.h"

namespace tidepool::k8s {
namespace {

// The workers and the elector are real threads: wait for them in real time.
bool WaitFor(const std::function<bool()>& done) {
  return testing::PollUntil(done, absl::Seconds(5), absl::Milliseconds(2)).has_value();
}

// Records each call with the clock's time; answers from a script (ok when it runs out).
class ScriptedReconciler : public Reconciler {
 public:
  explicit ScriptedReconciler(common::Clock* clock) : clock_(clock) {}

  absl::StatusOr<ReconcileResult> Reconcile(const std::string& key) override {
    absl::StatusOr<ReconcileResult> result = ReconcileResult{};
    {
      absl::MutexLock lock(&mutex_);
      calls_.emplace_back(key, clock_->Now());
      if (!script_.empty()) {
        result = script_.front();
        script_.erase(script_.begin());
      }
    }
    if (block_) {
      in_flight_ = true;
      while (block_) absl::SleepFor(absl::Milliseconds(1));
      in_flight_ = false;
    }
    return result;
  }

  void Then(absl::StatusOr<ReconcileResult> result) {
    absl::MutexLock lock(&mutex_);
    script_.push_back(std::move(result));
  }
  size_t Calls() {
    absl::MutexLock lock(&mutex_);
    return calls_.size();
  }
  std::vector<std::pair<std::string, absl::Time>> CallLog() {
    absl::MutexLock lock(&mutex_);
    return calls_;
  }

  std::atomic<bool> block_ = false;
  std::atomic<bool> in_flight_ = false;

 private:
  common::Clock* const clock_;
  absl::Mutex mutex_;
  std::vector<absl::StatusOr<ReconcileResult>> script_ ABSL_GUARDED_BY(mutex_);
  std::vector<std::pair<std::string, absl::Time>> calls_ ABSL_GUARDED_BY(mutex_);
};

// Per-key backoff of 1 s doubling, no overall bucket: delays are exact. Counts the
// reconciles whose retry or requeue is in place (before the test moves the clock on).
ControllerOptions Options(std::atomic<int>* completed = nullptr) {
  ControllerOptions options{
      .name = "test",
      .workers = 2,
      .queue = {.base_delay = absl::Seconds(1), .max_delay = absl::Minutes(1), .qps = 0}};
  if (completed != nullptr) {
    options.on_result = [completed](const std::string&, const absl::StatusOr<ReconcileResult>&,
                                    absl::Duration) { ++*completed; };
  }
  return options;
}

TEST_CASE("a reconcile asking to look again after a delay gets its key back then, not before") {
  common::FakeClock clock;
  ScriptedReconciler reconciler(&clock);
  reconciler.Then(ReconcileResult{.requeue_after = absl::Seconds(30)});
  std::atomic<int> completed = 0;
  Controller controller(reconciler, &clock, Options(&completed));
  controller.Start();
  controller.Enqueue("ns/a");
  REQUIRE(WaitFor([&] { return completed == 1; }));
  clock.Advance(absl::Seconds(29));
  absl::SleepFor(absl::Milliseconds(250));  // the queue looks at the clock every 100 ms
  CHECK(reconciler.Calls() == 1);
  clock.Advance(absl::Seconds(1));
  REQUIRE(WaitFor([&] { return reconciler.Calls() == 2; }));
  CHECK(reconciler.CallLog()[1].second - reconciler.CallLog()[0].second == absl::Seconds(30));
  controller.Stop();
}

TEST_CASE("a failed reconcile is retried with per-key backoff; success forgets the failures") {
  common::FakeClock clock;
  ScriptedReconciler reconciler(&clock);
  reconciler.Then(absl::UnavailableError("down"));
  reconciler.Then(absl::UnavailableError("still down"));
  reconciler.Then(ReconcileResult{});
  reconciler.Then(absl::UnavailableError("down again"));
  std::atomic<int> completed = 0;
  Controller controller(reconciler, &clock, Options(&completed));
  controller.Start();
  controller.Enqueue("ns/a");
  REQUIRE(WaitFor([&] { return completed == 1; }));
  // First failure: back after 1 s.
  absl::SleepFor(absl::Milliseconds(250));
  CHECK(reconciler.Calls() == 1);
  clock.Advance(absl::Seconds(1));
  REQUIRE(WaitFor([&] { return completed == 2; }));
  // Second failure: 2 s.
  clock.Advance(absl::Seconds(1));
  absl::SleepFor(absl::Milliseconds(250));
  CHECK(reconciler.Calls() == 2);
  clock.Advance(absl::Seconds(1));
  REQUIRE(WaitFor([&] { return completed == 3; }));  // succeeds: forgotten
  // A new failure starts from the base delay again.
  controller.Enqueue("ns/a");
  REQUIRE(WaitFor([&] { return completed == 4; }));
  clock.Advance(absl::Seconds(1));
  REQUIRE(WaitFor([&] { return completed == 5; }));
  const auto log = reconciler.CallLog();
  CHECK(log[1].second - log[0].second == absl::Seconds(1));
  CHECK(log[2].second - log[1].second == absl::Seconds(2));
  CHECK(log[4].second - log[3].second == absl::Seconds(1));
  controller.Stop();
}

// Records, per key, whether its reconcile ran in an urgent-requests scope.
class PriorityRecorder : public Reconciler {
 public:
  absl::StatusOr<ReconcileResult> Reconcile(const std::string& key) override {
    absl::MutexLock lock(&mutex_);
    urgent_[key] = UrgentRequests::Active();
    return ReconcileResult{};
  }
  std::map<std::string, bool> Seen() {
    absl::MutexLock lock(&mutex_);
    return urgent_;
  }

 private:
  absl::Mutex mutex_;
  std::map<std::string, bool> urgent_ ABSL_GUARDED_BY(mutex_);
};

TEST_CASE("an urgent key is reconciled with urgent requests, a routine one without") {
  common::FakeClock clock;
  PriorityRecorder reconciler;
  Controller controller(reconciler, &clock, Options());
  controller.Start();
  controller.EnqueueUrgent("ns/drain");
  controller.Enqueue("ns/resync");
  REQUIRE(WaitFor([&] { return reconciler.Seen().size() == 2; }));
  CHECK(reconciler.Seen() == std::map<std::string, bool>{{"ns/drain", true}, {"ns/resync", false}});
  controller.Stop();
}

TEST_CASE("workers wait for the caches, then look at every key once") {
  common::FakeClock clock;
  ScriptedReconciler reconciler(&clock);
  std::atomic<bool> synced = false;
  ControllerOptions options = Options();
  options.caches_synced = [&] { return synced.load(); };
  options.all_keys = [] { return std::vector<std::string>{"ns/a", "ns/b"}; };
  Controller controller(reconciler, &clock, options);
  controller.Start();
  controller.Enqueue("ns/c");  // an event while the caches still list
  absl::SleepFor(absl::Milliseconds(250));
  CHECK(reconciler.Calls() == 0);
  synced = true;
  REQUIRE(WaitFor([&] { return reconciler.Calls() == 3; }));
  absl::SleepFor(absl::Milliseconds(100));
  CHECK(reconciler.Calls() == 3);
  controller.Stop();
}

TEST_CASE("no key is reconciled on a stale cache; each is looked at every second, not backed off") {
  common::FakeClock clock;
  ScriptedReconciler reconciler(&clock);
  std::atomic<bool> current = false;
  std::atomic<int> checks = 0;
  std::atomic<int> completed = 0;
  ControllerOptions options = Options(&completed);
  options.caches_current = [&]() -> absl::Status {
    ++checks;
    return current ? absl::OkStatus() : absl::UnavailableError("stale");
  };
  Controller controller(reconciler, &clock, options);
  controller.Start();
  controller.Enqueue("ns/a");
  // Time passes in steps of 100 ms until `done`; how much passed.
  const auto advance_until = [&](const std::function<bool()>& done) {
    absl::Duration passed;
    const bool reached = WaitFor([&] {
      if (done()) return true;
      clock.Advance(absl::Milliseconds(100));
      passed += absl::Milliseconds(100);
      return false;
    });
    REQUIRE(reached);
    return passed;
  };
  // A long outage: a backoff would have grown to its one-minute cap by the end of it.
  advance_until([&] { return checks >= 12; });
  CHECK(reconciler.Calls() == 0);  // not acted on
  CHECK(completed == 0);           // and not reported as a failed reconcile
  current = true;
  // Within a few retry intervals (the fake clock runs ahead of the workers), not the
  // backoff's minute.
  CHECK(advance_until([&] { return reconciler.Calls() == 1; }) <= 10 * kStaleCacheRetry);
  CHECK(completed == 1);
  controller.Stop();
}

TEST_CASE("a stop before the caches synced ends the waiting workers") {
  common::FakeClock clock;
  ScriptedReconciler reconciler(&clock);
  ControllerOptions options = Options();
  options.caches_synced = [] { return false; };
  Controller controller(reconciler, &clock, options);
  controller.Start();
  controller.Enqueue("ns/a");
  controller.Stop();
  CHECK_FALSE(controller.running());
  CHECK(reconciler.Calls() == 0);
}

TEST_CASE(
    "Stop waits for the reconcile in flight; stopped, events are dropped; a restart "
    "looks at everything") {
  common::FakeClock clock;
  ScriptedReconciler reconciler(&clock);
  ControllerOptions options = Options();
  options.all_keys = [] { return std::vector<std::string>{"ns/a"}; };
  Controller controller(reconciler, &clock, options);
  reconciler.block_ = true;
  controller.Start();
  REQUIRE(WaitFor([&] { return reconciler.in_flight_.load(); }));
  std::atomic<bool> stopped = false;
  std::thread stopper([&] {
    controller.Stop();
    stopped = true;
  });
  absl::SleepFor(absl::Milliseconds(100));
  CHECK_FALSE(stopped);  // the reconcile still runs
  reconciler.block_ = false;
  stopper.join();
  CHECK_FALSE(reconciler.in_flight_);
  CHECK_FALSE(controller.running());
  controller.Enqueue("ns/b");
  absl::SleepFor(absl::Milliseconds(100));
  CHECK(reconciler.Calls() == 1);
  controller.Start();
  REQUIRE(WaitFor([&] { return reconciler.Calls() == 2; }));
  CHECK(reconciler.CallLog()[1].first == "ns/a");
  controller.Stop();
}

TEST_CASE("every reconcile is reported with its result and its time on the clock") {
  common::FakeClock clock;
  ScriptedReconciler reconciler(&clock);
  reconciler.Then(absl::InternalError("boom"));
  absl::Mutex mutex;
  std::vector<std::string> results;
  ControllerOptions options = Options();
  options.queue.base_delay = absl::Hours(1);
  options.on_result = [&](const std::string& key, const absl::StatusOr<ReconcileResult>& result,
                          absl::Duration) {
    absl::MutexLock lock(&mutex);
    results.push_back(key + (result.ok() ? " ok" : " error"));
  };
  Controller controller(reconciler, &clock, options);
  controller.Start();
  // One after the other: with two workers, the key reconciled first gets the scripted error.
  controller.Enqueue("ns/a");
  REQUIRE(WaitFor([&] {
    absl::MutexLock lock(&mutex);
    return results.size() == 1;
  }));
  controller.Enqueue("ns/b");
  REQUIRE(WaitFor([&] {
    absl::MutexLock lock(&mutex);
    return results.size() == 2;
  }));
  controller.Stop();
  absl::MutexLock lock(&mutex);
  std::sort(results.begin(), results.end());
  CHECK(results == std::vector<std::string>{"ns/a error", "ns/b ok"});
}

}  // namespace
}  // namespace tidepool::k8s

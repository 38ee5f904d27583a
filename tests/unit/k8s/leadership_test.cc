// The leadership model on a fake clock: the elector's sleeps move the clock at once, so
// a lease's whole life runs in milliseconds and every time below is exact.
#include "k8s/leadership.h"

#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <functional>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/clock.h"
#include "k8s/controller.h"
#include "k8s/leader_election.h"
#include "support/eventually.h"

namespace tidepool::k8s {
namespace {

// The workers and the elector are real threads: wait for them in real time.
bool WaitFor(const std::function<bool()>& done) {
  return testing::PollUntil(done, absl::Seconds(10), absl::Milliseconds(2)).has_value();
}

// One Lease in memory. Gets can be made to fail at once or to hang for their whole
// timeout (on the clock), as an API server that went away would.
class FakeLeases : public LeaseClient {
 public:
  enum class GetMode { kWorks, kFails, kHangs };
  explicit FakeLeases(common::FakeClock* clock) : clock_(clock) {}

  absl::StatusOr<std::string> Get(const std::string& ns, const std::string& name,
                                  absl::Duration timeout) override {
    switch (get_mode_.load()) {
      case GetMode::kFails:
        return absl::UnavailableError("connection refused");
      case GetMode::kHangs:
        clock_->SleepFor(timeout);
        return absl::DeadlineExceededError("timed out");
      case GetMode::kWorks:
        break;
    }
    absl::MutexLock lock(&mutex_);
    if (!record_) return absl::NotFoundError("leases \"x\" not found");
    return NewLeaseJson(ns, name, *record_);
  }
  // Another replica takes the lease; later writes of the first one conflict (as a
  // stale resourceVersion would).
  void TakeFor(const std::string& identity) {
    absl::MutexLock lock(&mutex_);
    record_->holder_identity = identity;
    record_->renew_time = clock_->Now();
    taken_ = true;
    last_write_ = clock_->Now();
  }
  absl::StatusOr<std::string> Create(const std::string& ns, const std::string& json,
                                     absl::Duration) override {
    return Write(ns, json);
  }
  absl::StatusOr<std::string> Update(const std::string& ns, const std::string&,
                                     const std::string& json, absl::Duration) override {
    return Write(ns, json);
  }

  // When the holder's last write landed: another replica sees the lease change no
  // earlier, so it cannot take the lease before this + the lease duration.
  absl::Time last_write() {
    absl::MutexLock lock(&mutex_);
    return last_write_;
  }
  std::optional<LeaseRecord> record() {
    absl::MutexLock lock(&mutex_);
    return record_;
  }

  std::atomic<GetMode> get_mode_ = GetMode::kWorks;

 private:
  absl::StatusOr<std::string> Write(const std::string& ns, const std::string& json) {
    absl::StatusOr<LeaseObject> lease = ParseLease(json);
    if (!lease.ok()) return lease.status();
    absl::MutexLock lock(&mutex_);
    if (taken_) return absl::AbortedError("the object has been modified");
    record_ = lease->record;
    last_write_ = clock_->Now();
    return NewLeaseJson(ns, "x", *record_);
  }

  common::FakeClock* const clock_;
  absl::Mutex mutex_;
  std::optional<LeaseRecord> record_ ABSL_GUARDED_BY(mutex_);
  absl::Time last_write_ ABSL_GUARDED_BY(mutex_) = absl::InfinitePast();
  bool taken_ ABSL_GUARDED_BY(mutex_) = false;
};

class NoopReconciler : public Reconciler {
 public:
  absl::StatusOr<ReconcileResult> Reconcile(const std::string&) override {
    return ReconcileResult{};
  }
};

constexpr absl::Duration kLeaseDuration = absl::Seconds(10);

struct Replica {
  explicit Replica(common::FakeClock* clock, FakeLeases* leases)
      : controller(reconciler, clock, {.name = "test"}),
        leadership(*leases, clock,
                   {.lease_namespace = "tidepool-system",
                    .lease_name = "x",
                    .identity = "replica-a",
                    .lease_duration = kLeaseDuration,
                    .renew_deadline = absl::Seconds(7),
                    .retry_period = absl::Seconds(2),
                    .on_stopped_leading =
                        [this, clock, leases] {
                          // Called once the workers have stopped.
                          absl::MutexLock lock(&mutex);
                          if (stopped_at) return;
                          stopped_at = clock->Now();
                          workers_running_then = controller.running();
                          last_write_then = leases->last_write();
                        }},
                   {&controller}) {}

  NoopReconciler reconciler;
  Controller controller;
  Leadership leadership;
  absl::Mutex mutex;
  std::optional<absl::Time> stopped_at ABSL_GUARDED_BY(mutex);
  bool workers_running_then ABSL_GUARDED_BY(mutex) = true;
  absl::Time last_write_then ABSL_GUARDED_BY(mutex);
};

void CheckStopsBeforeExpiry(FakeLeases::GetMode failure) {
  common::FakeClock clock;
  FakeLeases leases(&clock);
  Replica replica(&clock, &leases);
  REQUIRE(replica.leadership.Start().ok());
  REQUIRE(WaitFor([&] { return replica.controller.running(); }));
  CHECK(replica.leadership.IsLeader());
  // Let it renew a few times, then cut it off from the API server.
  const absl::Time acquired = clock.Now();
  REQUIRE(WaitFor([&] { return clock.Now() > acquired + absl::Seconds(20); }));
  leases.get_mode_ = failure;
  REQUIRE(WaitFor([&] {
    absl::MutexLock lock(&replica.mutex);
    return replica.stopped_at.has_value();
  }));
  absl::Time stopped_at;
  absl::Time last_write;
  {
    absl::MutexLock lock(&replica.mutex);
    stopped_at = *replica.stopped_at;
    last_write = replica.last_write_then;
    CHECK_FALSE(replica.workers_running_then);
  }
  CHECK_FALSE(replica.leadership.IsLeader());
  INFO("stopped " << absl::FormatDuration(stopped_at - last_write) << " after the last renewal");
  // The workers stopped before any other replica could count the lease as expired...
  CHECK(stopped_at < last_write + kLeaseDuration);
  // ...and not long before: at the renew deadline after the last renewal was sent.
  CHECK(stopped_at >= last_write + absl::Seconds(7) - absl::Seconds(2));
  // The record still names it; a standby takes over only once it expires.
  REQUIRE(leases.record().has_value());
  CHECK(leases.record()->holder_identity == "replica-a");
  replica.leadership.Stop();
  CHECK_FALSE(replica.controller.running());
}

TEST_CASE("failing lease reads stop the workers before the lease expires") {
  CheckStopsBeforeExpiry(FakeLeases::GetMode::kFails);
}

TEST_CASE("hanging lease reads stop the workers before the lease expires") {
  CheckStopsBeforeExpiry(FakeLeases::GetMode::kHangs);
}

TEST_CASE("a lease taken by another replica stops the workers at once") {
  common::FakeClock clock;
  FakeLeases leases(&clock);
  Replica replica(&clock, &leases);
  REQUIRE(replica.leadership.Start().ok());
  REQUIRE(WaitFor([&] { return replica.controller.running(); }));
  // Another replica writes itself as holder (as after a split brain or a manual edit).
  leases.TakeFor("replica-b");
  const absl::Time taken_at = leases.last_write();
  REQUIRE(WaitFor([&] {
    absl::MutexLock lock(&replica.mutex);
    return replica.stopped_at.has_value();
  }));
  absl::MutexLock lock(&replica.mutex);
  CHECK(*replica.stopped_at <= taken_at + absl::Seconds(2) + absl::Milliseconds(100));
  CHECK_FALSE(replica.workers_running_then);
}

TEST_CASE("a graceful stop stops the workers, then releases the lease") {
  common::FakeClock clock;
  FakeLeases leases(&clock);
  Replica replica(&clock, &leases);
  REQUIRE(replica.leadership.Start().ok());
  REQUIRE(WaitFor([&] { return replica.controller.running(); }));
  replica.leadership.Stop();
  CHECK_FALSE(replica.controller.running());
  REQUIRE(leases.record().has_value());
  CHECK(leases.record()->holder_identity.empty());
}

TEST_CASE("without election the controllers run from Start to Stop") {
  common::FakeClock clock;
  FakeLeases leases(&clock);
  NoopReconciler reconciler;
  Controller controller(reconciler, &clock, {.name = "test"});
  Leadership leadership(leases, &clock, {.enabled = false}, {&controller});
  REQUIRE(leadership.Start().ok());
  CHECK(controller.running());
  CHECK(leadership.IsLeader());
  leadership.Stop();
  CHECK_FALSE(controller.running());
  CHECK_FALSE(leadership.IsLeader());
  CHECK_FALSE(leases.record().has_value());
}

TEST_CASE("an impossible election config is refused before anything starts") {
  common::FakeClock clock;
  FakeLeases leases(&clock);
  NoopReconciler reconciler;
  Controller controller(reconciler, &clock, {.name = "test"});
  Leadership leadership(leases, &clock,
                        {.lease_namespace = "ns",
                         .lease_name = "x",
                         .identity = "me",
                         .lease_duration = absl::Seconds(5),
                         .renew_deadline = absl::Seconds(7)},
                        {&controller});
  CHECK(leadership.Start().code() == absl::StatusCode::kInvalidArgument);
  CHECK_FALSE(controller.running());
}

}  // namespace
}  // namespace tidepool::k8s

#include "k8s/leader_election.h"

#include <catch2/catch_test_macros.hpp>
#include <optional>
#include <string>

#include "absl/strings/match.h"
#include "common/clock.h"
#include "k8s/object_json.h"

namespace tidepool::k8s {
namespace {

constexpr absl::Duration kLease = absl::Seconds(4);

LeaseRecord HeldBy(const std::string& holder, absl::Time renewed, int64_t transitions = 0) {
  return {.holder_identity = holder,
          .lease_duration_seconds = 4,
          .acquire_time = renewed,
          .renew_time = renewed,
          .lease_transitions = transitions};
}

// One candidate's view: what it observed, on its own fake clock.
struct Candidate {
  std::string identity;
  common::FakeClock* clock;
  LeaseObservation observation;

  LeaseDecision Decide(const std::optional<LeaseRecord>& current) {
    if (current) ObserveLease(*current, clock->Now(), observation);
    return DecideLeaseAction(current, observation, identity, kLease, clock->Now());
  }
};

TEST_CASE("MicroTime is RFC 3339 in UTC with microseconds and parses back") {
  const absl::Time t = absl::FromUnixMicros(1796112000123456);
  CHECK(FormatMicroTime(t) == "2026-12-01T08:00:00.123456Z");
  CHECK(ParseApiTime(FormatMicroTime(t)).value() == t);
  CHECK(ParseApiTime("2026-12-01T09:00:00+01:00").value() == absl::FromUnixSeconds(1796112000));
  const absl::Status bad = ParseApiTime("yesterday").status();
  CHECK(bad.code() == absl::StatusCode::kInvalidArgument);
  CHECK(absl::StrContains(bad.message(), "\"yesterday\""));
}

TEST_CASE("a Lease's spec parses, and an update keeps the rest of the object") {
  const std::string json = R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease",
      "metadata":{"name":"l","namespace":"ns","resourceVersion":"42","labels":{"a":"b"}},
      "spec":{"holderIdentity":"pod-a","leaseDurationSeconds":15,
              "acquireTime":"2026-12-01T08:00:00.000000Z","renewTime":"2026-12-01T08:00:10.500000Z",
              "leaseTransitions":3}})";
  const LeaseObject lease = ParseLease(json).value();
  CHECK(lease.resource_version == "42");
  CHECK(lease.record == LeaseRecord{.holder_identity = "pod-a",
                                    .lease_duration_seconds = 15,
                                    .acquire_time = absl::FromUnixSeconds(1796112000),
                                    .renew_time = absl::FromUnixMillis(1796112010500),
                                    .lease_transitions = 3});

  LeaseRecord next = lease.record;
  next.holder_identity = "pod-b";
  next.lease_transitions = 4;
  const std::string updated = LeaseWithRecord(json, next).value();
  CHECK(absl::StrContains(updated, R"("resourceVersion":"42")"));  // the update is conditional
  CHECK(absl::StrContains(updated, R"("labels":{"a":"b"})"));
  CHECK(ParseLease(updated)->record == next);

  const std::string created = NewLeaseJson("ns", "l", next);
  CHECK(ParseLease(created)->record == next);
  CHECK(absl::StrContains(created, R"("namespace":"ns")"));
  CHECK(ParseLease("[]").status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("no Lease: create one holding it") {
  common::FakeClock clock;
  Candidate a{"a", &clock, {}};
  const LeaseDecision decision = a.Decide(std::nullopt);
  CHECK(decision.action == LeaseAction::kCreate);
  CHECK(decision.record == LeaseRecord{.holder_identity = "a",
                                       .lease_duration_seconds = 4,
                                       .acquire_time = clock.Now(),
                                       .renew_time = clock.Now(),
                                       .lease_transitions = 0});
}

TEST_CASE("another's lease expires leaseDuration after its last observed change") {
  common::FakeClock clock;
  Candidate b{"b", &clock, {}};
  const LeaseRecord held = HeldBy("a", clock.Now(), 2);
  CHECK(b.Decide(held).action == LeaseAction::kWait);
  clock.Advance(absl::Seconds(3));
  CHECK(b.Decide(held).action == LeaseAction::kWait);
  CHECK(HeldByAnother(b.observation, "b", clock.Now()));

  // The holder renews: the clock of expiry starts again from this observation.
  const LeaseRecord renewed = HeldBy("a", clock.Now(), 2);
  CHECK(b.Decide(renewed).action == LeaseAction::kWait);
  clock.Advance(absl::Seconds(3));
  CHECK(b.Decide(renewed).action == LeaseAction::kWait);  // 6 s since acquire, 3 since renew

  clock.Advance(absl::Seconds(1));  // 4 s without a change: expired
  const LeaseDecision take = b.Decide(renewed);
  CHECK(take.action == LeaseAction::kUpdate);
  CHECK(take.record.holder_identity == "b");
  CHECK(take.record.lease_transitions == 3);
  CHECK(take.record.acquire_time == clock.Now());
  CHECK(take.record.renew_time == clock.Now());
}

TEST_CASE("expiry follows the local observation, not the holder's renewTime") {
  common::FakeClock clock;
  Candidate b{"b", &clock, {}};
  // The holder's clock is an hour behind: its renewTime looks long expired, but the
  // record is fresh to us, so it is valid for a full lease duration from now.
  const LeaseRecord skewed = HeldBy("a", clock.Now() - absl::Hours(1));
  CHECK(b.Decide(skewed).action == LeaseAction::kWait);
  clock.Advance(absl::Seconds(3));
  CHECK(b.Decide(skewed).action == LeaseAction::kWait);
  clock.Advance(absl::Seconds(1));
  CHECK(b.Decide(skewed).action == LeaseAction::kUpdate);
}

TEST_CASE("the holder renews: acquireTime and transitions stay, renewTime moves") {
  common::FakeClock clock;
  Candidate a{"a", &clock, {}};
  const absl::Time acquired = clock.Now();
  const LeaseRecord mine = HeldBy("a", acquired, 5);
  a.Decide(mine);
  clock.Advance(absl::Seconds(1));
  const LeaseDecision renew = a.Decide(mine);
  CHECK(renew.action == LeaseAction::kUpdate);
  CHECK(renew.record.holder_identity == "a");
  CHECK(renew.record.acquire_time == acquired);
  CHECK(renew.record.renew_time == clock.Now());
  CHECK(renew.record.lease_transitions == 5);
}

TEST_CASE("a released lease is taken at once, and release keeps the transitions") {
  common::FakeClock clock;
  const LeaseRecord released = ReleasedRecord(HeldBy("a", clock.Now(), 7), clock.Now());
  CHECK(released.holder_identity.empty());
  CHECK(released.lease_duration_seconds == 1);
  CHECK(released.lease_transitions == 7);

  Candidate b{"b", &clock, {}};
  const LeaseDecision take = b.Decide(released);
  CHECK(take.action == LeaseAction::kUpdate);  // no waiting for the duration
  CHECK(take.record.holder_identity == "b");
  CHECK(take.record.lease_transitions == 8);
}

TEST_CASE("a released lease's one-second duration bounds the wait even if a holder is named") {
  common::FakeClock clock;
  LeaseRecord short_lease = HeldBy("a", clock.Now());
  short_lease.lease_duration_seconds = 1;
  Candidate b{"b", &clock, {}};
  CHECK(b.Decide(short_lease).action == LeaseAction::kWait);
  clock.Advance(absl::Seconds(1));
  CHECK(b.Decide(short_lease).action == LeaseAction::kUpdate);
}

TEST_CASE("leader election config: the leader must give up before the lease expires") {
  LeaderElectionConfig config{.lease_namespace = "ns",
                              .lease_name = "l",
                              .identity = "a",
                              .lease_duration = absl::Seconds(4),
                              .renew_deadline = absl::Seconds(3),
                              .retry_period = absl::Seconds(1)};
  CHECK(ValidateLeaderElectionConfig(config).ok());

  LeaderElectionConfig bad = config;
  bad.renew_deadline = absl::Seconds(4);
  absl::Status status = ValidateLeaderElectionConfig(bad);
  CHECK(status.code() == absl::StatusCode::kInvalidArgument);
  CHECK(absl::StrContains(status.message(), "lease duration (4s) must exceed the renew deadline"));

  bad = config;
  bad.retry_period = absl::Milliseconds(2600);  // 1.2 x 2.6 s > 3 s
  CHECK(absl::StrContains(ValidateLeaderElectionConfig(bad).message(), "1.2 x retry period"));

  bad = config;
  bad.identity.clear();
  CHECK(absl::StrContains(ValidateLeaderElectionConfig(bad).message(), "identity"));
}

TEST_CASE("an elector with an impossible configuration refuses to run") {
  ClientConfig config;
  config.server = "https://127.0.0.1:1";  // never contacted
  Client client(config);
  common::FakeClock clock;
  LeaderElector elector(client,
                        {.lease_namespace = "default",
                         .lease_name = "x",
                         .identity = "me",
                         .lease_duration = absl::Seconds(2),
                         .renew_deadline = absl::Seconds(3)},
                        &clock);
  const absl::Status status = elector.Run({});
  CHECK(status.code() == absl::StatusCode::kInvalidArgument);
  CHECK_FALSE(elector.IsLeader());
  CHECK(clock.TotalSlept() == absl::ZeroDuration());
}

}  // namespace
}  // namespace tidepool::k8s

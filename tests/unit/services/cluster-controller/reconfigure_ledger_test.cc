#include "reconfigure_ledger.h"

#include <catch2/catch_test_macros.hpp>

#include "absl/time/time.h"

namespace tidepool::cluster {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1'800'000'000);
constexpr int64_t kNodes = 6'500;  // spacing 39 s

TEST_CASE("Reconfigures of a cluster are spaced from the last one's return") {
  ReconfigureLedger ledger;
  CHECK(ledger.SpacingLeft("hpc/a", "h1", kNodes, kT0) == absl::ZeroDuration());

  ledger.Sent("hpc/a", "h1", kT0);
  SECTION("while the last one's load is checked, the same config waits for nothing") {
    CHECK(ledger.SpacingLeft("hpc/a", "h1", kNodes, kT0 + absl::Seconds(1)) ==
          absl::ZeroDuration());
  }
  SECTION("another config waits out the spacing") {
    CHECK(ledger.SpacingLeft("hpc/a", "h2", kNodes, kT0 + absl::Seconds(9)) == absl::Seconds(30));
    CHECK(ledger.SpacingLeft("hpc/a", "h2", kNodes, kT0 + absl::Seconds(40)) ==
          absl::ZeroDuration());
  }
  SECTION("a load seen does not end the spacing") {
    // 20 s apart (load check + propagation) killed slurmctld at 6,500 nodes.
    ledger.Loaded("hpc/a");
    CHECK(ledger.SpacingLeft("hpc/a", "h2", kNodes, kT0 + absl::Seconds(20)) == absl::Seconds(19));
    CHECK_FALSE(ledger.PendingFor("hpc/a", "h1").has_value());
  }
  SECTION("other clusters are not spaced by it") {
    CHECK(ledger.SpacingLeft("hpc/b", "h2", kNodes, kT0) == absl::ZeroDuration());
  }
}

TEST_CASE("A pending reconfigure carries its return time and the last failed load check") {
  ReconfigureLedger ledger;
  ledger.Sent("hpc/a", "h1", kT0);
  ledger.NotLoaded("hpc/a", "slurmctld does not list cpu-03");

  std::optional<ReconfigureLedger::Pending> pending = ledger.PendingFor("hpc/a", "h1");
  REQUIRE(pending.has_value());
  CHECK(pending->returned_at == kT0);
  CHECK(pending->mismatch == "slurmctld does not list cpu-03");
  CHECK_FALSE(ledger.PendingFor("hpc/a", "h2").has_value());

  SECTION("a new reconfigure replaces it, without the old mismatch") {
    ledger.Sent("hpc/a", "h2", kT0 + absl::Seconds(40));
    CHECK_FALSE(ledger.PendingFor("hpc/a", "h1").has_value());
    pending = ledger.PendingFor("hpc/a", "h2");
    REQUIRE(pending.has_value());
    CHECK(pending->mismatch.empty());
  }
  SECTION("a load check after the load records nothing") {
    ledger.Loaded("hpc/a");
    ledger.NotLoaded("hpc/a", "late");
    CHECK_FALSE(ledger.PendingFor("hpc/a", "h1").has_value());
  }
}

TEST_CASE("A reconfigure sent again for the same config counts its sends until it loads") {
  ReconfigureLedger ledger;
  ledger.Sent("hpc/a", "h1", kT0);
  CHECK(ledger.PendingFor("hpc/a", "h1")->sends == 1);
  ledger.Sent("hpc/a", "h1", kT0 + absl::Seconds(30));
  ledger.Sent("hpc/a", "h1", kT0 + absl::Seconds(90));
  CHECK(ledger.PendingFor("hpc/a", "h1")->sends == 3);
  CHECK(ledger.PendingFor("hpc/a", "h1")->returned_at == kT0 + absl::Seconds(90));

  SECTION("another config starts again at one") {
    ledger.Sent("hpc/a", "h2", kT0 + absl::Seconds(100));
    CHECK(ledger.PendingFor("hpc/a", "h2")->sends == 1);
  }
  SECTION("a load ends the count") {
    ledger.Loaded("hpc/a");
    ledger.Sent("hpc/a", "h1", kT0 + absl::Seconds(100));
    CHECK(ledger.PendingFor("hpc/a", "h1")->sends == 1);
  }
  SECTION("other clusters count their own") {
    ledger.Sent("hpc/b", "h1", kT0);
    CHECK(ledger.PendingFor("hpc/b", "h1")->sends == 1);
  }
}

TEST_CASE("Each reconfigure of a config that did not load waits twice as long, up to a cap") {
  const absl::Duration timeout = absl::Seconds(30);
  CHECK(ReconfigureLedger::ResendWait(timeout, 1) == absl::Seconds(30));
  CHECK(ReconfigureLedger::ResendWait(timeout, 2) == absl::Seconds(60));
  CHECK(ReconfigureLedger::ResendWait(timeout, 3) == absl::Seconds(120));
  CHECK(ReconfigureLedger::ResendWait(timeout, 5) == absl::Seconds(480));
  CHECK(ReconfigureLedger::ResendWait(timeout, 6) == ReconfigureLedger::kMaxResendWait);
  CHECK(ReconfigureLedger::ResendWait(timeout, 1'000'000) == ReconfigureLedger::kMaxResendWait);
  // A load timeout longer than the cap is never shortened.
  CHECK(ReconfigureLedger::ResendWait(absl::Minutes(15), 4) == absl::Minutes(15));
}

}  // namespace
}  // namespace tidepool::cluster

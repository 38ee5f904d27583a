#include "slurm/conf/time_limit.h"

#include <catch2/catch_test_macros.hpp>
#include <string>

#include "absl/strings/match.h"

namespace tidepool::slurm {
namespace {

TEST_CASE("Slurm time limits in each of Slurm's forms") {
  CHECK(ParseTimeLimit("INFINITE").value() == -1);
  CHECK(ParseTimeLimit("UNLIMITED").value() == -1);
  CHECK(ParseTimeLimit("90").value() == 90);             // minutes
  CHECK(ParseTimeLimit("90:30").value() == 91);          // minutes:seconds, rounded up
  CHECK(ParseTimeLimit("2:00:00").value() == 120);       // hours:minutes:seconds
  CHECK(ParseTimeLimit("1-0").value() == 1440);          // days-hours
  CHECK(ParseTimeLimit("1-02:30").value() == 1590);      // days-hours:minutes
  CHECK(ParseTimeLimit("7-00:00:01").value() == 10081);  // days-hours:minutes:seconds
}

TEST_CASE("malformed or out-of-range time limits are refused, saying why") {
  for (const std::string bad :
       {"", "infinite", "1h", "-5", "1-", "1-24", "1-2:60", "2:60:00", "90:61", "1:2:3:4", "1--2",
        "12345678901", "99999999999:00", "9999999999-00", " 90", "90\n", "1-2-3"}) {
    absl::StatusOr<int64_t> parsed = ParseTimeLimit(bad);
    INFO("\"" << bad << "\"");
    CHECK(absl::IsInvalidArgument(parsed.status()));
    CHECK(absl::StrContains(parsed.status().message(), "is not a Slurm time limit"));
  }
  // The largest finite limit Slurm holds, and one past it.
  CHECK(ParseTimeLimit("4294967293").value() == 4294967293LL);
  CHECK_FALSE(ParseTimeLimit("4294967294").ok());
}

}  // namespace
}  // namespace tidepool::slurm

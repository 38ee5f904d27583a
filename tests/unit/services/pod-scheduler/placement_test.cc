#include "placement.h"

#include <catch2/catch_test_macros.hpp>

#include "absl/strings/match.h"

namespace tidepool::podsched {
namespace {

using Annotations = std::map<std::string, std::string>;

TEST_CASE("no annotations leave every choice to Slurm") {
  absl::StatusOr<Placement> p = ParsePlacement({{"other/x", "y"}});
  REQUIRE(p.ok());
  CHECK(p->partition.empty());
  CHECK(p->time_limit_minutes == 0);
  CHECK(p->exclusive == tidepool::v1::JobSpec::EXCLUSIVE_UNSPECIFIED);
}

TEST_CASE("every placement annotation is read") {
  absl::StatusOr<Placement> p = ParsePlacement({{"tidepool.dev/partition", "gpu"},
                                                {"tidepool.dev/account", "ml-team"},
                                                {"tidepool.dev/qos", "high"},
                                                {"tidepool.dev/time-limit", "90"},
                                                {"tidepool.dev/exclusive", "user"},
                                                {"tidepool.dev/reservation", "maint.1"},
                                                {"tidepool.dev/comment", "nightly eval"}});
  REQUIRE(p.ok());
  CHECK(p->partition == "gpu");
  CHECK(p->account == "ml-team");
  CHECK(p->qos == "high");
  CHECK(p->time_limit_minutes == 90);
  CHECK(p->exclusive == tidepool::v1::JobSpec::EXCLUSIVE_USER);
  CHECK(p->reservation == "maint.1");
  CHECK(p->comment == "nightly eval");
  CHECK(ParsePlacement({{"tidepool.dev/exclusive", "none"}})->exclusive ==
        tidepool::v1::JobSpec::EXCLUSIVE_NONE);
  CHECK(ParsePlacement({{"tidepool.dev/exclusive", "ok"}})->exclusive ==
        tidepool::v1::JobSpec::EXCLUSIVE_OK);
}

TEST_CASE("a bad annotation is refused naming it and what is wrong with its value") {
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"tidepool.dev/time-limit", "90m", "is not a whole number of minutes"},
      {"tidepool.dev/time-limit", "-5", "is not a whole number of minutes"},
      {"tidepool.dev/time-limit", "0", "is out of range; use 1 to 527040 minutes"},
      {"tidepool.dev/time-limit", "527041", "is out of range"},
      {"tidepool.dev/time-limit", "99999999999999999999", "is not a whole number"},
      {"tidepool.dev/exclusive", "yes", "is not none"},
      {"tidepool.dev/partition", "gpu,cpu", "may hold only letters"},
      {"tidepool.dev/account", "", "is empty"},
      {"tidepool.dev/qos", std::string(65, 'q'), "is longer than 64"},
      {"tidepool.dev/reservation", "a b", "may hold only letters"},
      {"tidepool.dev/comment", "two\nlines", "holds a control character"},
      {"tidepool.dev/comment", std::string(513, 'c'), "is longer than 512"},
  };
  for (const auto& [key, value, problem] : cases) {
    absl::StatusOr<Placement> p = ParsePlacement({{key, value}});
    INFO(key << "=" << value << " -> " << p.status());
    REQUIRE_FALSE(p.ok());
    CHECK(absl::IsInvalidArgument(p.status()));
    CHECK(absl::StartsWith(p.status().message(), "annotation " + key + ": \""));
    CHECK(absl::StrContains(p.status().message(), problem));
  }
}

}  // namespace
}  // namespace tidepool::podsched

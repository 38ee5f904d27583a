#include "tidepool/gate_hold.h"

#include <catch2/catch_test_macros.hpp>
#include <map>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tidepool/contract.h"

namespace tidepool::api {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1'800'000'000);

std::map<std::string, k8s::Condition> Gate(const std::string& status) {
  if (status.empty()) return {};
  return {{kSlurmNodeInUseCondition,
           {.type = kSlurmNodeInUseCondition, .status = status, .reason = "DrainedIdle"}}};
}

TEST_CASE("only a False gate is one to hold") {
  CHECK(GateFalse(Gate("False")));
  CHECK_FALSE(GateFalse(Gate("True")));
  CHECK_FALSE(GateFalse(Gate("Unknown")));
  CHECK_FALSE(GateFalse(Gate("")));  // no gate yet: the pod is not Ready, nothing to hold
}

TEST_CASE("a hold turns the gate True with its cause's reason and message") {
  for (const GateHoldCause& cause : {kSyncerAbsentHold, kSlurmUnreachableHold}) {
    const std::string body = GateHoldApplyBody("hpc", "gpu-0", cause, kT0);
    CAPTURE(body);
    CHECK(absl::StrContains(body, R"("kind":"Pod")"));
    CHECK(absl::StrContains(body, R"("name":"gpu-0","namespace":"hpc")"));
    CHECK(absl::StrContains(
        body, absl::StrCat(R"({"type":"tidepool.dev/SlurmNodeInUse","status":"True","reason":")",
                           cause.reason, R"(")")));
    CHECK(absl::StrContains(body, cause.message));
    CHECK(absl::StrContains(body, R"("lastTransitionTime":"2027-01-15T08:00:00Z")"));
  }
  CHECK(std::string(kSyncerAbsentHold.reason) == "SlurmSyncerAbsent");
  CHECK(std::string(kSlurmUnreachableHold.reason) == "SlurmUnreachable");
}

}  // namespace
}  // namespace tidepool::api

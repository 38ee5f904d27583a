#include "claim_drift.h"

#include <catch2/catch_test_macros.hpp>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace tidepool::cluster {
namespace {

std::string Claim(const std::string& storage_class, const std::string& size) {
  return absl::StrCat(
      R"({"metadata":{"name":"research-controller-state"},"spec":{)",
      storage_class.empty() ? "" : absl::StrCat(R"("storageClassName":")", storage_class, R"(",)"),
      R"("resources":{"requests":{"storage":")", size, R"("}}}})");
}

WantedClaim Wanted(const std::string& storage_class, const std::string& size) {
  return {.field = "spec.controller.stateSave",
          .name = "research-controller-state",
          .storage_class = storage_class,
          .size = size};
}

using Kind = ClaimDrift::Kind;

TEST_CASE("a claim as the spec asks, in other units or of the default class, does not drift") {
  CHECK(CompareClaim(Claim("fast", "10Gi"), Wanted("fast", "10Gi"))->kind == Kind::kNone);
  CHECK(CompareClaim(Claim("fast", "10240Mi"), Wanted("fast", "10Gi"))->kind == Kind::kNone);
  // No class named: the claim keeps the default class it was given.
  CHECK(CompareClaim(Claim("standard", "10Gi"), Wanted("", "10Gi"))->kind == Kind::kNone);
}

TEST_CASE("a larger size grows the claim; a smaller one is refused, saying what it keeps") {
  absl::StatusOr<ClaimDrift> grow = CompareClaim(Claim("", "10Gi"), Wanted("", "50Gi"));
  REQUIRE(grow.ok());
  CHECK(grow->kind == Kind::kGrow);
  CHECK(grow->have_size == "10Gi");
  CHECK(ClaimGrowPatch("50Gi") == R"({"spec":{"resources":{"requests":{"storage":"50Gi"}}}})");

  absl::StatusOr<ClaimDrift> shrink = CompareClaim(Claim("", "50Gi"), Wanted("", "10Gi"));
  REQUIRE(shrink.ok());
  CHECK(shrink->kind == Kind::kShrink);
  CHECK(absl::StrContains(shrink->message, "spec.controller.stateSave.size is 10Gi"));
  CHECK(absl::StrContains(shrink->message, "a claim cannot shrink; it keeps 50Gi"));
}

TEST_CASE("another class is refused before any size: a claim's class never changes") {
  absl::StatusOr<ClaimDrift> drift = CompareClaim(Claim("slow", "10Gi"), Wanted("fast", "50Gi"));
  REQUIRE(drift.ok());
  CHECK(drift->kind == Kind::kClassDiffers);
  CHECK(absl::StrContains(drift->message, R"(storageClassName is "fast")"));
  CHECK(absl::StrContains(drift->message, R"(has class "slow")"));
  CHECK(CompareClaim(Claim("", "10Gi"), Wanted("fast", "10Gi"))->kind == Kind::kClassDiffers);
}

TEST_CASE("an unreadable claim or size is an error, not a resize") {
  CHECK_FALSE(CompareClaim("[", Wanted("", "10Gi")).ok());
  absl::StatusOr<ClaimDrift> bad = CompareClaim(Claim("", "lots"), Wanted("", "10Gi"));
  REQUIRE_FALSE(bad.ok());
  CHECK(absl::StrContains(bad.status().message(), R"(asks for storage "lots")"));
}

}  // namespace
}  // namespace tidepool::cluster

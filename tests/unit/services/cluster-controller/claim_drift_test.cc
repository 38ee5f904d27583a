#include "claim_drift.h"

#include <catch2/catch_test_macros.hpp>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace tidepool::cluster {
namespace {

using Kind = ClaimDrift::Kind;

// A claim of `storage_class` asking for `size`; bound with `capacity` unless `phase` says.
std::string Claim(const std::string& storage_class, const std::string& size,
                  const std::string& phase = "Bound", const std::string& capacity = "") {
  return absl::StrCat(
      R"({"metadata":{"name":"research-controller-state"},"spec":{)",
      storage_class.empty() ? "" : absl::StrCat(R"("storageClassName":")", storage_class, R"(",)"),
      R"("resources":{"requests":{"storage":")", size, R"("}}},"status":{"phase":")", phase, R"(")",
      capacity.empty() ? "" : absl::StrCat(R"(,"capacity":{"storage":")", capacity, R"("})"), "}}");
}

WantedClaim Wanted(const std::string& storage_class, const std::string& size) {
  return {.field = "spec.controller.stateSave",
          .name = "research-controller-state",
          .storage_class = storage_class,
          .size = size,
          .move_advice = "move the state"};
}

Kind KindOf(const std::string& claim, const WantedClaim& wanted) {
  absl::StatusOr<ClaimDrift> drift = CompareClaim(claim, wanted);
  INFO(drift.status().ToString());
  REQUIRE(drift.ok());
  return drift->kind;
}

TEST_CASE("a claim's JSON gives what it asks for, has and its resourceVersion") {
  absl::StatusOr<ClaimSpec> claim = ParseClaimSpec(absl::StrCat(
      R"({"metadata":{"name":"c","resourceVersion":"41"},)",
      R"("spec":{"storageClassName":"fast","resources":{"requests":{"storage":"1Gi"}}},)",
      R"("status":{"phase":"Bound","capacity":{"storage":"2Gi"}}})"));
  REQUIRE(claim.ok());
  CHECK(claim->resource_version == "41");
  CHECK(claim->storage_class == "fast");
  CHECK(claim->size == "1Gi");
  CHECK(claim->phase == "Bound");
  CHECK(claim->capacity == "2Gi");
  CHECK_FALSE(ParseClaimSpec("[").ok());
}

TEST_CASE("a claim as the spec asks, in other units or of the default class, does not drift") {
  CHECK(KindOf(Claim("fast", "10Gi"), Wanted("fast", "10Gi")) == Kind::kNone);
  CHECK(KindOf(Claim("fast", "10240Mi"), Wanted("fast", "10Gi")) == Kind::kNone);
  // No class named: the claim keeps the default class it was given.
  CHECK(KindOf(Claim("standard", "10Gi"), Wanted("", "10Gi")) == Kind::kNone);
  CHECK(KindOf(Claim("", "10Gi", "Bound", "10Gi"), Wanted("", "10Gi")) == Kind::kNone);
  // A provisioner may give more than asked.
  CHECK(KindOf(Claim("", "10Gi", "Bound", "16Gi"), Wanted("", "10Gi")) == Kind::kNone);
}

TEST_CASE("a larger size grows a bound claim, waits for an unbound one, and shows it growing") {
  absl::StatusOr<ClaimDrift> grow = CompareClaim(Claim("", "10Gi"), Wanted("", "50Gi"));
  REQUIRE(grow.ok());
  CHECK(grow->kind == Kind::kGrow);
  CHECK(grow->have_size == "10Gi");
  // What differs, for whatever the caller then says it asked.
  CHECK(grow->message ==
        "spec.controller.stateSave.size is 50Gi but PersistentVolumeClaim "
        "research-controller-state has 10Gi");
  CHECK(ClaimGrowPatch("50Gi") == R"({"spec":{"resources":{"requests":{"storage":"50Gi"}}}})");

  absl::StatusOr<ClaimDrift> pending =
      CompareClaim(Claim("", "10Gi", "Pending"), Wanted("", "50Gi"));
  REQUIRE(pending.ok());
  CHECK(pending->kind == Kind::kNotBound);
  CHECK(absl::StrContains(pending->message, R"(not bound yet (phase "Pending"))"));

  absl::StatusOr<ClaimDrift> growing =
      CompareClaim(Claim("", "50Gi", "Bound", "10Gi"), Wanted("", "50Gi"));
  REQUIRE(growing.ok());
  CHECK(growing->kind == Kind::kResizing);
  CHECK(absl::StrContains(growing->message, "asks for 50Gi and has 10Gi so far"));
}

TEST_CASE("a smaller size is refused, saying what the claim keeps") {
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
  CHECK(absl::StrContains(drift->message, "set the field back, or move the state"));
  CHECK(KindOf(Claim("", "10Gi"), Wanted("fast", "10Gi")) == Kind::kClassDiffers);
}

TEST_CASE("an unreadable claim, size or capacity is an error, not a resize") {
  CHECK_FALSE(CompareClaim("[", Wanted("", "10Gi")).ok());
  absl::StatusOr<ClaimDrift> bad = CompareClaim(Claim("", "lots"), Wanted("", "10Gi"));
  REQUIRE_FALSE(bad.ok());
  CHECK(absl::StrContains(bad.status().message(), R"(asks for storage "lots")"));
  CHECK_FALSE(CompareClaim(Claim("", "10Gi", "Bound", "lots"), Wanted("", "10Gi")).ok());
}

}  // namespace
}  // namespace tidepool::cluster

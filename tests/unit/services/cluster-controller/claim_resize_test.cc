#include "claim_resize.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::cluster {
namespace {

TEST_CASE("a refused resize is not asked again until the claim or the size changes") {
  RefusedResizes refused;
  CHECK_FALSE(refused.Find("hpc/state", "7", "2Gi").has_value());
  refused.Note("hpc/state", "7", "2Gi", {.reason = "ClaimResizeRefused", .message = "no"});
  const std::optional<StorageNote> known = refused.Find("hpc/state", "7", "2Gi");
  REQUIRE(known.has_value());
  CHECK(known->reason == "ClaimResizeRefused");
  CHECK_FALSE(refused.Find("hpc/data", "7", "2Gi").has_value());
  CHECK_FALSE(refused.Find("hpc/state", "7", "3Gi").has_value());  // another size: ask
  refused.Note("hpc/state", "7", "2Gi", {.reason = "ClaimResizeRefused", .message = "no"});
  CHECK_FALSE(refused.Find("hpc/state", "8", "2Gi").has_value());  // the claim changed
  CHECK_FALSE(refused.Find("hpc/state", "7", "2Gi").has_value());  // and is forgotten
}

}  // namespace
}  // namespace tidepool::cluster

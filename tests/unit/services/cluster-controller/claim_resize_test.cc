#include "claim_resize.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::cluster {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

TEST_CASE("a refused resize is not asked again until the claim or the size changes, a while") {
  RefusedResizes refused;
  const StorageNote no{.reason = "ClaimResizeRefused", .message = "no"};
  CHECK_FALSE(refused.Find("hpc/state", "7", "2Gi", kStart).has_value());
  refused.Note("hpc/state", "7", "2Gi", no, kStart);
  const std::optional<StorageNote> known = refused.Find("hpc/state", "7", "2Gi", kStart);
  REQUIRE(known.has_value());
  CHECK(known->reason == "ClaimResizeRefused");
  CHECK_FALSE(refused.Find("hpc/data", "7", "2Gi", kStart).has_value());
  CHECK_FALSE(refused.Find("hpc/state", "7", "3Gi", kStart).has_value());  // another size: ask
  refused.Note("hpc/state", "7", "2Gi", no, kStart);
  CHECK_FALSE(refused.Find("hpc/state", "8", "2Gi", kStart).has_value());  // the claim changed
  CHECK_FALSE(refused.Find("hpc/state", "7", "2Gi", kStart).has_value());  // and is forgotten
  // What refused it (the StorageClass, the role) may be fixed without the claim changing.
  refused.Note("hpc/state", "7", "2Gi", no, kStart);
  CHECK(refused.Find("hpc/state", "7", "2Gi", kStart + absl::Minutes(9)).has_value());
  CHECK_FALSE(refused.Find("hpc/state", "7", "2Gi", kStart + absl::Minutes(10)).has_value());
}

}  // namespace
}  // namespace tidepool::cluster

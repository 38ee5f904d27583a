#include "k8s/quantity.h"

#include <catch2/catch_test_macros.hpp>
#include <string>

namespace tidepool::k8s {
namespace {

TEST_CASE("QuantityValue reads binary and decimal suffixes") {
  CHECK(QuantityValue("64").value() == 64);
  CHECK(QuantityValue("512Ki").value() == 512 * 1024);
  CHECK(QuantityValue("512Mi").value() == 536870912);
  CHECK(QuantityValue("2Ti").value() == 2LL << 40);
  CHECK(QuantityValue("1.5G").value() == 1500000000);
  CHECK(QuantityValue("1e3").value() == 1000);
  CHECK(QuantityValue("2E").value() == 2000000000000000000LL);
}

TEST_CASE("QuantityValue rounds fractions up as Kubernetes does") {
  CHECK(QuantityValue("1500m").value() == 2);
  CHECK(QuantityValue("0.1").value() == 1);
}

TEST_CASE("QuantityMilliValue gives thousandths") {
  CHECK(QuantityMilliValue("500m").value() == 500);
  CHECK(QuantityMilliValue("2").value() == 2000);
  CHECK(QuantityMilliValue("63.5").value() == 63500);
  CHECK(QuantityMilliValue("100u").value() == 1);
}

TEST_CASE("Quantity parsing refuses malformed or oversized input with the reason") {
  CHECK(QuantityValue("12XB").status().message() ==
        "quantity \"12XB\" is not valid: unknown suffix \"XB\"");
  CHECK(QuantityValue("").status().message() ==
        "quantity \"\" is not valid: expected a number such as 64, 0.5 or 512Gi");
  CHECK(QuantityValue("1.2.3").status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(QuantityValue("16Ei").status().message() == "quantity \"16Ei\" is not valid: too large");
  CHECK_FALSE(QuantityValue("Gi").ok());
}

// 30 digits times 10^30 (or 2^60) would wrap a 128-bit product into a wrong, small value.
TEST_CASE("Quantity parsing never overflows: past the range is an error") {
  const std::string digits(30, '9');
  for (const std::string& huge : {digits + "e30", digits + "Ei", digits + "E", digits + "P",
                                  "0." + digits + "e-30", digits + "." + "1e30"}) {
    INFO(huge);
    absl::StatusOr<int64_t> value = QuantityMilliValue(huge);
    REQUIRE_FALSE(value.ok());
    CHECK(absl::IsInvalidArgument(value.status()));
  }
  // Tiny values round up, within range.
  CHECK(QuantityValue("0.0000000000000000000000000001").value() == 1);
  CHECK(QuantityValue("1e-30").value() == 1);
  CHECK(QuantityMilliValue("8Ei").status().message() == "quantity \"8Ei\" is not valid: too large");
  CHECK(QuantityValue("7Ei").value() == int64_t{7} << 60);
}

}  // namespace
}  // namespace tidepool::k8s

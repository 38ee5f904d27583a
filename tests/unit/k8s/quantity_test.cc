#include "k8s/quantity.h"

#include <catch2/catch_test_macros.hpp>

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

}  // namespace
}  // namespace tidepool::k8s

#include "tidepool/quantity_memo.h"

#include <catch2/catch_test_macros.hpp>

#include "k8s/quantity.h"

namespace tidepool::api {
namespace {

int parses = 0;

absl::StatusOr<int64_t> CountingQuantityValue(absl::string_view text) {
  ++parses;
  return k8s::QuantityValue(text);
}

TEST_CASE("QuantityMemo parses a repeated text once and a new text again") {
  parses = 0;
  QuantityMemo memo(CountingQuantityValue);
  CHECK(memo.Parse("2Ki").value() == 2048);
  CHECK(memo.Parse("2Ki").value() == 2048);
  CHECK(parses == 1);
  CHECK(memo.Parse("3").value() == 3);
  CHECK(memo.Parse("2Ki").value() == 2048);
  CHECK(parses == 3);
}

TEST_CASE("QuantityMemo returns each failure and does not remember it") {
  parses = 0;
  QuantityMemo memo(CountingQuantityValue);
  CHECK(memo.Parse("8").value() == 8);
  CHECK_FALSE(memo.Parse("eight").ok());
  CHECK_FALSE(memo.Parse("eight").ok());
  CHECK(parses == 3);
  // A failure leaves nothing remembered, not even the success before it.
  CHECK(memo.Parse("8").value() == 8);
  CHECK(parses == 4);
}

}  // namespace
}  // namespace tidepool::api

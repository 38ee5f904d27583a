#include "common/one_of.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::common {
namespace {

enum class Colour { kRed, kBlue };

TEST_CASE("ParseOneOf gives the value of a named choice") {
  const auto parse = [](absl::string_view text) {
    return ParseOneOf<Colour>("--colour=", text, {{"red", Colour::kRed}, {"blue", Colour::kBlue}});
  };
  CHECK(parse("red").value() == Colour::kRed);
  CHECK(parse("blue").value() == Colour::kBlue);
  const absl::StatusOr<Colour> green = parse("green");
  REQUIRE_FALSE(green.ok());
  CHECK(green.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(green.status().message() == "--colour=\"green\" is not one of red, blue");
  // Matching is exact: no case folding, no prefixes.
  CHECK_FALSE(parse("Red").ok());
  CHECK_FALSE(parse("re").ok());
}

TEST_CASE("CheckOneOf names the subject, the value and the choices, an empty one as \"\"") {
  CHECK(CheckOneOf("x: ", "nvml", {"", "nvidia", "nvml"}).ok());
  CHECK(CheckOneOf("x: ", "", {"", "nvidia", "nvml"}).ok());
  const absl::Status wrong = CheckOneOf("x: ", "amd", {"", "nvidia", "nvml"});
  CHECK(wrong.code() == absl::StatusCode::kInvalidArgument);
  CHECK(wrong.message() == "x: \"amd\" is not one of \"\", nvidia, nvml");
  CHECK(NotOneOf("a\"b", {"c"}) == "\"a\"b\" is not one of c");
}

}  // namespace
}  // namespace tidepool::common

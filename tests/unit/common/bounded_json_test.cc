#include "common/bounded_json.h"

#include <catch2/catch_test_macros.hpp>
#include <string>

#include "rapidjson/document.h"

namespace tidepool::common {
namespace {

TEST_CASE("JSON nested past the bound is refused before rapidjson recurses into it") {
  // Two million '[' segfaulted rapidjson's recursive parser.
  rapidjson::Document deep;
  CHECK_FALSE(ParseBoundedJson(deep, std::string(2'000'000, '[')));
  CHECK(deep.HasParseError());

  const std::string at_bound = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  rapidjson::Document fine;
  CHECK(ParseBoundedJson(fine, at_bound));
  CHECK_FALSE(fine.HasParseError());
  CHECK_FALSE(JsonDepthWithin("[" + at_bound + "]"));
}

TEST_CASE("brackets inside strings do not count, escaped quotes included") {
  const std::string brackets(10'000, '[');
  CHECK(JsonDepthWithin(R"({"a":")" + brackets + R"("})"));
  CHECK(JsonDepthWithin(R"({"a":"\")" + brackets + R"("})"));
  CHECK_FALSE(JsonDepthWithin(R"({"a":"\\")" + brackets + R"("})", 64));
  rapidjson::Document doc;
  CHECK(ParseBoundedJson(doc, R"({"kind":"Pod","metadata":{"name":"[x]"}})"));
  CHECK(doc["metadata"]["name"] == "[x]");
}

}  // namespace
}  // namespace tidepool::common

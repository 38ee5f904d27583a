#include "k8s/secret_data.h"

#include <catch2/catch_test_macros.hpp>
#include <string>

#include "absl/strings/match.h"

namespace tidepool::k8s {
namespace {

std::string SecretWithData(const std::string& data) {
  return R"({"kind":"Secret","metadata":{"name":"x"},"data":)" + data + "}";
}

TEST_CASE("a Secret's data value is decoded") {
  absl::StatusOr<std::string> value =
      SecretDataValue(SecretWithData(R"({"tls.key":"c2VjcmV0LWJ5dGVz"})"), "tls.key");
  REQUIRE(value.ok());
  CHECK(*value == "secret-bytes");
}

TEST_CASE("a Secret's data value that cannot be used says why, never what it holds") {
  struct Case {
    std::string json;
    const char* says;
  };
  for (const Case& c : {
           Case{SecretWithData(R"({"other":"c2VjcmV0"})"), "has no data key \"tls.key\""},
           Case{R"({"kind":"Secret"})", "has no data key \"tls.key\""},
           Case{SecretWithData(R"({"tls.key":""})"), "has no data key \"tls.key\""},
           Case{SecretWithData(R"({"tls.key":7})"), "has no data key \"tls.key\""},
           Case{SecretWithData(R"({"tls.key":"c2Vj*cmV0"})"),
                "has data key \"tls.key\" that is not base64"},
           Case{"not json c2VjcmV0", "cannot be read as a Secret"},
           Case{"[]", "cannot be read as a Secret"},
       }) {
    absl::StatusOr<std::string> value = SecretDataValue(c.json, "tls.key");
    INFO(c.json);
    REQUIRE_FALSE(value.ok());
    CHECK(absl::IsFailedPrecondition(value.status()));
    CHECK(value.status().message() == c.says);
    CHECK_FALSE(absl::StrContains(value.status().message(), "c2V"));
  }
}

}  // namespace
}  // namespace tidepool::k8s

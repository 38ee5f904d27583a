#include "k8s/errors.h"

#include <catch2/catch_test_macros.hpp>
#include <string>

namespace tidepool::k8s {
namespace {

TEST_CASE("a 2xx response is OK") {
  CHECK(StatusFromResponse(200, "{}").ok());
  CHECK(StatusFromResponse(201, "").ok());
}

TEST_CASE("404 NotFound carries the server's message and reason") {
  const absl::Status s = StatusFromResponse(
      404, R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
           R"("message":"configmaps \"x\" not found","reason":"NotFound",)"
           R"("details":{"name":"x","kind":"configmaps"},"code":404})");
  CHECK(s.code() == absl::StatusCode::kNotFound);
  CHECK(s.message() == "configmaps \"x\" not found");
  CHECK(ApiReason(s) == "NotFound");
  CHECK(HttpCode(s) == 404);
  CHECK(absl::IsNotFound(s));
  CHECK_FALSE(IsConflict(s));
}

TEST_CASE("409 tells AlreadyExists and Conflict apart") {
  const absl::Status exists = StatusFromResponse(
      409, R"({"kind":"Status","status":"Failure","message":"configmaps \"x\" already exists",)"
           R"("reason":"AlreadyExists","code":409})");
  CHECK(exists.code() == absl::StatusCode::kAlreadyExists);
  CHECK(absl::IsAlreadyExists(exists));
  CHECK_FALSE(IsConflict(exists));

  const absl::Status conflict = StatusFromResponse(
      409, R"({"kind":"Status","status":"Failure","message":"Operation cannot be fulfilled on )"
           R"(configmaps \"x\": the object has been modified; please apply your changes to the )"
           R"(latest version and try again","reason":"Conflict","code":409})");
  CHECK(conflict.code() == absl::StatusCode::kAborted);
  CHECK(IsConflict(conflict));
  CHECK(ApiReason(conflict) == "Conflict");
}

TEST_CASE("422 Invalid lists its field causes") {
  const absl::Status s = StatusFromResponse(
      422, R"({"kind":"Status","status":"Failure","message":"W \"w\" is invalid: spec.size: )"
           R"(Invalid value: 80","reason":"Invalid","details":{"causes":[)"
           R"({"reason":"FieldValueInvalid","message":"Invalid value: 80","field":"spec.size"},)"
           R"({"reason":"FieldValueNotSupported","message":"Unsupported value: \"plaid\"",)"
           R"("field":"spec.color"}]},"code":422})");
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK(IsInvalid(s));
  const std::vector<StatusCause> causes = ApiCauses(s);
  REQUIRE(causes.size() == 2);
  CHECK(causes[0].field == "spec.size");
  CHECK(causes[0].reason == "FieldValueInvalid");
  CHECK(causes[1].field == "spec.color");
  CHECK(causes[1].message == "Unsupported value: \"plaid\"");
  // A cause the message does not mention is appended to it.
  CHECK(s.message().find("spec.color: Unsupported value") != std::string::npos);
}

TEST_CASE("410 Expired and Gone have a code of their own") {
  const absl::Status expired = StatusFromResponse(
      410, R"({"kind":"Status","status":"Failure","message":"The provided continue parameter )"
           R"(is too old","reason":"Expired","code":410})");
  CHECK(expired.code() == absl::StatusCode::kOutOfRange);
  CHECK(IsGone(expired));
  CHECK(ApiReason(expired) == "Expired");

  const absl::Status gone = StatusFromStatusObject(
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
      R"json("message":"too old resource version: 1 (4711)","reason":"Expired","code":410})json");
  CHECK(IsGone(gone));
  CHECK(HttpCode(gone) == 410);
  CHECK(gone.message() == "too old resource version: 1 (4711)");

  const absl::Status bare_gone = StatusFromStatusObject(R"({"kind":"Status","code":410})");
  CHECK(IsGone(bare_gone));
  CHECK(ApiReason(bare_gone) == "Gone");
}

TEST_CASE("authentication, authorization and server errors") {
  CHECK(StatusFromResponse(401, R"({"kind":"Status","message":"Unauthorized",)"
                                R"("reason":"Unauthorized","code":401})")
            .code() == absl::StatusCode::kUnauthenticated);
  const absl::Status forbidden = StatusFromResponse(
      403, R"({"kind":"Status","message":"pods is forbidden: User \"u\" cannot list",)"
           R"("reason":"Forbidden","code":403})");
  CHECK(forbidden.code() == absl::StatusCode::kPermissionDenied);
  CHECK(ApiReason(forbidden) == "Forbidden");
  CHECK(StatusFromResponse(429, R"({"kind":"Status","reason":"TooManyRequests","code":429})")
            .code() == absl::StatusCode::kResourceExhausted);
  CHECK(
      StatusFromResponse(500, R"({"kind":"Status","reason":"InternalError","code":500})").code() ==
      absl::StatusCode::kInternal);
  CHECK(StatusFromResponse(504, R"({"kind":"Status","reason":"Timeout","code":504})").code() ==
        absl::StatusCode::kDeadlineExceeded);
  CHECK(StatusFromResponse(405, "").code() == absl::StatusCode::kUnimplemented);
}

TEST_CASE("a body that is not a Status still gives a code, reason and readable message") {
  const absl::Status s = StatusFromResponse(502, "<html>bad gateway</html>\n", "GET /api/v1/pods");
  CHECK(s.code() == absl::StatusCode::kUnavailable);
  CHECK(s.message() == "GET /api/v1/pods: HTTP 502: <html>bad gateway</html>");
  CHECK(HttpCode(s) == 502);
  CHECK(ApiReason(s).empty());
  CHECK(ApiReason(StatusFromResponse(404, "404 page not found")) == "NotFound");
  CHECK(StatusFromResponse(418, "teapot").code() == absl::StatusCode::kUnknown);
}

TEST_CASE("statuses not from the API server have no reason") {
  CHECK(ApiReason(absl::UnavailableError("connection refused")).empty());
  CHECK(HttpCode(absl::UnavailableError("connection refused")) == 0);
  CHECK(ApiCauses(absl::OkStatus()).empty());
}

}  // namespace
}  // namespace tidepool::k8s

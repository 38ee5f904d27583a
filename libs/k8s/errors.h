#pragma once

// API server failures as absl::Status. A response other than 2xx becomes a Status whose
// code follows the HTTP status and the API server's `reason`, whose message is the API
// server's own message, and which carries the reason, HTTP code and field causes as
// payloads, read with the accessors below (callers never parse messages).
//
//   HTTP / reason                 absl code
//   400 BadRequest                InvalidArgument
//   401 Unauthorized              Unauthenticated
//   403 Forbidden                 PermissionDenied
//   404 NotFound                  NotFound
//   405 MethodNotAllowed          Unimplemented
//   406, 415                      InvalidArgument
//   409 AlreadyExists             AlreadyExists
//   409 Conflict (stale update)   Aborted           (re-read and retry)
//   410 Expired / Gone            OutOfRange        (resourceVersion or continue too old)
//   422 Invalid                   InvalidArgument   (causes listed)
//   429 TooManyRequests           ResourceExhausted
//   500 InternalError             Internal
//   503 ServiceUnavailable        Unavailable
//   504 Timeout, ServerTimeout    DeadlineExceeded
//   other 5xx                     Unavailable; anything else Unknown
// Transport failures (no HTTP response) are Unavailable, or DeadlineExceeded for a
// request timeout; they carry no reason.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace tidepool::k8s {

struct StatusCause {
  std::string reason;  // FieldValueInvalid, FieldValueRequired, …
  std::string message;
  std::string field;  // spec.size
};

// The Status a response of `http_status` with `body` (a Kubernetes Status object, or
// anything else) stands for; OkStatus for 2xx. `context` ("GET /api/v1/…") is used only
// when the body is not a Status and the message must be made up.
absl::Status StatusFromResponse(long http_status, absl::string_view body,
                                absl::string_view context = "");

// The Status an ERROR watch event's object (a Kubernetes Status) stands for.
absl::Status StatusFromStatusObject(absl::string_view json);

// Accessors for the payloads. Empty / 0 when the status did not come from the API server.
std::string ApiReason(const absl::Status& status);  // "NotFound", "Conflict", "Expired", …
int HttpCode(const absl::Status& status);
std::vector<StatusCause> ApiCauses(const absl::Status& status);

// absl::IsNotFound and absl::IsAlreadyExists answer those two cases.
// A write lost an optimistic-concurrency race (409 Conflict): re-read, recompute, retry.
inline bool IsConflict(const absl::Status& s) { return s.code() == absl::StatusCode::kAborted; }
// The resourceVersion (watch) or continue token (list) is too old (410): relist.
inline bool IsGone(const absl::Status& s) { return s.code() == absl::StatusCode::kOutOfRange; }
inline bool IsInvalid(const absl::Status& s) { return ApiReason(s) == "Invalid"; }

}  // namespace tidepool::k8s

#pragma once

// Errors of Slurm REST calls, always with the call they came from: "GET
// /slurm/v0.0.45/node/n-09 (HTTP 404): slurm error 2018 Invalid node name specified
// (Failure to query node n-09, from _dump_nodes)".

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace tidepool::slurm::rest {

// Which call a reply belongs to, for messages.
struct CallContext {
  std::string method;            // GET, POST, DELETE
  std::string path;              // /slurm/v0.0.45/nodes/
  int http_status = 0;           // 0 before a reply
  std::string Describe() const;  // "GET /slurm/v0.0.45/nodes/ (HTTP 200)"
};

// One entry of a reply's errors[] (or a job signal reply's status[].error).
struct SlurmError {
  int64_t error_number = 0;
  std::string error;        // Slurm's text for error_number
  std::string description;  // what slurmrestd was doing
  std::string source;       // the function that reported it
};

// The status for a reply that carried errors: the code follows the HTTP status and
// the first error number (an invalid job or node → NotFound, permission → PermissionDenied,
// another error with HTTP 404 → Unimplemented, otherwise FailedPrecondition for HTTP 200,
// Internal for 5xx, InvalidArgument for 4xx). NotFound always means "Slurm says this job or
// node does not exist", never "this path is not served".
// The first error's number is attached and read back with SlurmErrorNumber.
absl::Status SlurmErrorStatus(const CallContext& call, const std::vector<SlurmError>& errors);

// The status for a non-2xx reply without errors[] (401 → Unauthenticated, 403 →
// PermissionDenied, 404 → Unimplemented (no such path), 502/503/504 → Unavailable, …). `body`
// (plain text or JSON) is quoted, shortened.
absl::Status HttpStatusError(const CallContext& call, absl::string_view body);

// The reply was not the JSON the mapping expects: Internal, with where and why.
absl::Status MalformedReply(const CallContext& call, absl::string_view what);

// `status` with another code, message and payloads kept.
absl::Status WithCode(const absl::Status& status, absl::StatusCode code);

// The Slurm error number carried by a status from SlurmErrorStatus.
std::optional<int64_t> SlurmErrorNumber(const absl::Status& status);

// ESLURM_ALREADY_DONE: "Job/step already completing or completed".
inline constexpr int64_t kSlurmErrorAlreadyDone = 2021;

}  // namespace tidepool::slurm::rest

#include "slurm/rest/errors.h"

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tidepool::slurm::rest {
namespace {

constexpr absl::string_view kErrorNumberPayload = "type.tidepool.dev/slurm.rest.error_number";

// Slurm error numbers (slurm_errno.h) that mean the object does not exist.
bool IsNotFound(int64_t number) {
  switch (number) {
    case 2017:  // ESLURM_INVALID_JOB_ID
    case 2018:  // ESLURM_INVALID_NODE_NAME
      return true;
    default:
      return false;
  }
}

bool IsPermission(int64_t number) { return number == 2002; /* ESLURM_ACCESS_DENIED */ }

// SLURM_PROTOCOL_AUTHENTICATION_ERROR: slurmctld refused the token slurmrestd passed on.
bool IsAuthentication(int64_t number) { return number == 1007; }

constexpr absl::string_view kTokenHint =
    " (slurmrestd rejected the token: check the JWT key or token)";

constexpr absl::string_view kUnknownPathHint =
    " (slurmrestd serves no such path: check its version and openapi plugins)";

std::string Shorten(absl::string_view text) {
  constexpr size_t kMax = 300;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  if (text.size() <= kMax) return std::string(text);
  return absl::StrCat(text.substr(0, kMax), "…");
}

}  // namespace

std::string CallContext::Describe() const {
  if (http_status == 0) return absl::StrCat(method, " ", path);
  return absl::StrCat(method, " ", path, " (HTTP ", http_status, ")");
}

absl::Status SlurmErrorStatus(const CallContext& call, const std::vector<SlurmError>& errors) {
  std::vector<std::string> parts;
  for (const SlurmError& e : errors) {
    std::string part = absl::StrCat("slurm error ", e.error_number);
    if (!e.error.empty()) absl::StrAppend(&part, " ", e.error);
    if (!e.description.empty() || !e.source.empty()) {
      absl::StrAppend(&part, " (", e.description);
      if (!e.source.empty()) {
        absl::StrAppend(&part, e.description.empty() ? "" : ", ", "from ", e.source);
      }
      absl::StrAppend(&part, ")");
    }
    parts.push_back(std::move(part));
  }
  const int64_t first = errors.empty() ? 0 : errors.front().error_number;
  absl::StatusCode code;
  if (IsAuthentication(first) || call.http_status == 401 || call.http_status == 511) {
    code = absl::StatusCode::kUnauthenticated;
  } else if (IsNotFound(first)) {
    code = absl::StatusCode::kNotFound;
  } else if (call.http_status == 404) {
    code = absl::StatusCode::kUnimplemented;  // the path, not an object, is unknown
  } else if (IsPermission(first) || call.http_status == 403) {
    code = absl::StatusCode::kPermissionDenied;
  } else if (call.http_status >= 500) {
    code = absl::StatusCode::kInternal;
  } else if (call.http_status >= 400) {
    code = absl::StatusCode::kInvalidArgument;
  } else {
    code = absl::StatusCode::kFailedPrecondition;
  }
  absl::Status status(code,
                      absl::StrCat(call.Describe(), ": ", absl::StrJoin(parts, "; "),
                                   code == absl::StatusCode::kUnauthenticated ? kTokenHint : ""));
  status.SetPayload(kErrorNumberPayload, absl::Cord(absl::StrCat(first)));
  return status;
}

absl::Status HttpStatusError(const CallContext& call, absl::string_view body) {
  const std::string message = absl::StrCat(call.Describe(), ": ", Shorten(body));
  switch (call.http_status) {
    case 401:
    case 511:
      return absl::UnauthenticatedError(absl::StrCat(message, kTokenHint));
    case 403:
      return absl::PermissionDeniedError(message);
    case 404:
      // No Slurm error says which object is missing: slurmrestd serves no such path (a
      // wrong version or plugin, or a proxy). Never "the object does not exist": callers
      // read NotFound as "not in Slurm", and a node not in Slurm may lose its pod.
      return absl::UnimplementedError(absl::StrCat(message, kUnknownPathHint));
    case 408:
    case 504:
      return absl::DeadlineExceededError(message);
    case 429:
      return absl::ResourceExhaustedError(message);
    case 502:
    case 503:
      return absl::UnavailableError(message);
    default:
      break;
  }
  if (call.http_status >= 500) return absl::InternalError(message);
  if (call.http_status >= 400) return absl::InvalidArgumentError(message);
  return absl::UnknownError(message);
}

absl::Status MalformedReply(const CallContext& call, absl::string_view what) {
  return absl::InternalError(absl::StrCat(call.Describe(), ": unexpected reply: ", what));
}

absl::Status WithCode(const absl::Status& status, absl::StatusCode code) {
  absl::Status out(code, status.message());
  status.ForEachPayload(
      [&](absl::string_view url, const absl::Cord& payload) { out.SetPayload(url, payload); });
  return out;
}

std::optional<int64_t> SlurmErrorNumber(const absl::Status& status) {
  const auto payload = status.GetPayload(kErrorNumberPayload);
  if (!payload.has_value()) return std::nullopt;
  int64_t number = 0;
  if (!absl::SimpleAtoi(std::string(*payload), &number)) return std::nullopt;
  return number;
}

}  // namespace tidepool::slurm::rest

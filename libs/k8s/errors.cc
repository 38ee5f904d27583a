#include "k8s/errors.h"

#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/bounded_json.h"
#include "rapidjson/document.h"

namespace tidepool::k8s {
namespace {

constexpr char kReasonUrl[] = "type.tidepool.dev/k8s.reason";
constexpr char kCodeUrl[] = "type.tidepool.dev/k8s.http_code";
constexpr char kCausesUrl[] = "type.tidepool.dev/k8s.causes";

std::string Str(const rapidjson::Value& object, const char* key) {
  if (!object.IsObject()) return "";
  auto it = object.FindMember(key);
  if (it == object.MemberEnd() || !it->value.IsString()) return "";
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

absl::StatusCode CodeFor(long http_status, absl::string_view reason) {
  switch (http_status) {
    case 400:
    case 406:
    case 415:
    case 422:
      return absl::StatusCode::kInvalidArgument;
    case 401:
      return absl::StatusCode::kUnauthenticated;
    case 403:
      return absl::StatusCode::kPermissionDenied;
    case 404:
      return absl::StatusCode::kNotFound;
    case 405:
      return absl::StatusCode::kUnimplemented;
    case 409:
      return reason == "AlreadyExists" ? absl::StatusCode::kAlreadyExists
                                       : absl::StatusCode::kAborted;
    case 410:
      return absl::StatusCode::kOutOfRange;
    case 429:
      return absl::StatusCode::kResourceExhausted;
    case 500:
      return absl::StatusCode::kInternal;
    case 503:
      return absl::StatusCode::kUnavailable;
    case 504:
      return absl::StatusCode::kDeadlineExceeded;
    default:
      break;
  }
  if (reason == "Timeout" || reason == "ServerTimeout") return absl::StatusCode::kDeadlineExceeded;
  if (http_status >= 500 && http_status < 600) return absl::StatusCode::kUnavailable;
  return absl::StatusCode::kUnknown;
}

std::string DefaultReason(long http_status) {
  switch (http_status) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 405:
      return "MethodNotAllowed";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 415:
      return "UnsupportedMediaType";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    case 500:
      return "InternalError";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    default:
      return "";
  }
}

// Causes as "reason\x1ffield\x1fmessage" records separated by \x1e.
std::string EncodeCauses(const std::vector<StatusCause>& causes) {
  std::string out;
  for (const StatusCause& cause : causes) {
    if (!out.empty()) out += '\x1e';
    absl::StrAppend(&out, cause.reason, "\x1f", cause.field, "\x1f", cause.message);
  }
  return out;
}

// A Status object (already parsed) with the HTTP status it came with (0: use its code).
absl::Status FromStatusDocument(const rapidjson::Value& doc, long http_status) {
  long code = http_status;
  if (code == 0) {
    auto it = doc.FindMember("code");
    if (it != doc.MemberEnd() && it->value.IsInt()) code = it->value.GetInt();
  }
  std::string reason = Str(doc, "reason");
  if (reason.empty()) reason = DefaultReason(code);
  std::string message = Str(doc, "message");
  std::vector<StatusCause> causes;
  auto details = doc.FindMember("details");
  if (details != doc.MemberEnd() && details->value.IsObject()) {
    auto list = details->value.FindMember("causes");
    if (list != details->value.MemberEnd() && list->value.IsArray()) {
      for (const rapidjson::Value& c : list->value.GetArray()) {
        causes.push_back({Str(c, "reason"), Str(c, "message"), Str(c, "field")});
      }
    }
  }
  if (message.empty()) message = absl::StrCat(reason.empty() ? "HTTP error" : reason, " ", code);
  // The server's message usually lists the causes already; add those it does not.
  for (const StatusCause& cause : causes) {
    if (!cause.field.empty() && !absl::StrContains(message, cause.field)) {
      absl::StrAppend(&message, "; ", cause.field, ": ", cause.message);
    }
  }
  absl::Status status(CodeFor(code, reason), message);
  status.SetPayload(kReasonUrl, absl::Cord(reason));
  status.SetPayload(kCodeUrl, absl::Cord(absl::StrCat(code)));
  if (!causes.empty()) status.SetPayload(kCausesUrl, absl::Cord(EncodeCauses(causes)));
  return status;
}

}  // namespace

absl::Status StatusFromResponse(long http_status, absl::string_view body,
                                absl::string_view context) {
  if (http_status >= 200 && http_status < 300) return absl::OkStatus();
  rapidjson::Document doc;
  common::ParseBoundedJson(doc, body);
  if (!doc.HasParseError() && doc.IsObject() && Str(doc, "kind") == "Status") {
    return FromStatusDocument(doc, http_status);
  }
  const std::string reason = DefaultReason(http_status);
  std::string excerpt(body.substr(0, 300));
  while (!excerpt.empty() && (excerpt.back() == '\n' || excerpt.back() == '\r')) excerpt.pop_back();
  absl::Status status(CodeFor(http_status, reason),
                      absl::StrCat(context.empty() ? "" : absl::StrCat(context, ": "), "HTTP ",
                                   http_status, excerpt.empty() ? "" : ": ", excerpt));
  if (!reason.empty()) status.SetPayload(kReasonUrl, absl::Cord(reason));
  status.SetPayload(kCodeUrl, absl::Cord(absl::StrCat(http_status)));
  return status;
}

absl::Status StatusFromStatusObject(absl::string_view json) {
  rapidjson::Document doc;
  common::ParseBoundedJson(doc, json);
  if (doc.HasParseError() || !doc.IsObject()) {
    return absl::UnknownError(absl::StrCat("unparseable Status object: ", json.substr(0, 200)));
  }
  return FromStatusDocument(doc, 0);
}

std::string ApiReason(const absl::Status& status) {
  auto payload = status.GetPayload(kReasonUrl);
  return payload ? std::string(*payload) : "";
}

int HttpCode(const absl::Status& status) {
  auto payload = status.GetPayload(kCodeUrl);
  int code = 0;
  if (payload && absl::SimpleAtoi(std::string(*payload), &code)) return code;
  return 0;
}

std::vector<StatusCause> ApiCauses(const absl::Status& status) {
  std::vector<StatusCause> causes;
  auto payload = status.GetPayload(kCausesUrl);
  if (!payload) return causes;
  for (absl::string_view record : absl::StrSplit(std::string(*payload), '\x1e')) {
    std::vector<std::string> parts = absl::StrSplit(record, absl::MaxSplits('\x1f', 2));
    parts.resize(3);
    causes.push_back({parts[0], parts[2], parts[1]});
  }
  return causes;
}

}  // namespace tidepool::k8s

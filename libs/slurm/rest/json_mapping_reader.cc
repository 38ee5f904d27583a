#include "slurm/rest/json_mapping_reader.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/bounded_json.h"
#include "slurm/rest/json_mapping.h"

namespace tidepool::slurm::rest {
namespace json_internal {

const char* TypeName(const Value& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType:
      return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      return "a boolean";
    case rapidjson::kObjectType:
      return "an object";
    case rapidjson::kArrayType:
      return "an array";
    case rapidjson::kStringType:
      return "a string";
    case rapidjson::kNumberType:
      return "a number";
  }
  return "something else";
}

bool NumberToInt(const Value& v, int64_t* out) {
  if (v.IsInt64()) {
    *out = v.GetInt64();
  } else if (v.IsUint64()) {
    *out = static_cast<int64_t>(std::min<uint64_t>(v.GetUint64(), INT64_MAX));
  } else if (v.IsDouble()) {
    const double d = v.GetDouble();
    if (!(d > -9.2e18 && d < 9.2e18)) return false;
    *out = static_cast<int64_t>(d);
  } else {
    return false;
  }
  return true;
}

absl::Status ParseDocument(absl::string_view body, const CallContext& call,
                           rapidjson::Document* doc) {
  if (!common::JsonDepthWithin(body)) {
    return MalformedReply(
        call, absl::StrCat("JSON nested deeper than ", common::kMaxJsonDepth, " levels"));
  }
  doc->Parse(body.data(), body.size());
  if (doc->HasParseError()) {
    return MalformedReply(
        call, absl::StrCat("not JSON (", rapidjson::GetParseError_En(doc->GetParseError()),
                           " at offset ", doc->GetErrorOffset(), ")"));
  }
  if (!doc->IsObject()) {
    return MalformedReply(call, absl::StrCat("expected an object, got ", TypeName(*doc)));
  }
  return absl::OkStatus();
}

std::vector<SlurmError> ReadErrors(const Value& doc) {
  std::vector<SlurmError> errors;
  if (!doc.IsObject()) return errors;
  auto it = doc.FindMember("errors");
  if (it == doc.MemberEnd() || !it->value.IsArray()) return errors;
  for (const Value& item : it->value.GetArray()) {
    SlurmError e;
    if (item.IsObject()) {
      ObjectReader r(item, "errors[]");
      r.Int("error_number", &e.error_number);
      r.String("error", &e.error);
      r.String("description", &e.description);
      r.String("source", &e.source);
    } else if (item.IsString()) {
      e.description = item.GetString();
    }
    errors.push_back(std::move(e));
  }
  return errors;
}

// Parses `body`, checks errors[] and returns the document for mapping.
absl::Status ParseChecked(absl::string_view body, const CallContext& call,
                          rapidjson::Document* doc) {
  if (absl::Status s = ParseDocument(body, call, doc); !s.ok()) return s;
  std::vector<SlurmError> errors = ReadErrors(*doc);
  if (!errors.empty()) return SlurmErrorStatus(call, errors);
  return absl::OkStatus();
}

absl::Status Mapped(const CallContext& call, const absl::Status& status) {
  if (status.ok()) return status;
  return MalformedReply(call, status.message());
}

}  // namespace json_internal

std::vector<SlurmError> ErrorsInBody(absl::string_view body) {
  rapidjson::Document doc;
  common::ParseBoundedJson(doc, body);
  if (doc.HasParseError()) return {};
  return json_internal::ReadErrors(doc);
}

}  // namespace tidepool::slurm::rest

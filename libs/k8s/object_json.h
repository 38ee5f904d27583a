#pragma once

// Small helpers for code that reads and writes fields of API objects held as JSON text
// (rapidjson), and the API's time formats. Missing or mistyped fields read as empty / 0.

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace tidepool::k8s {

// Parses `json`; InvalidArgument (naming `what`) when it is not a JSON object.
absl::StatusOr<rapidjson::Document> ParseJsonObject(absl::string_view json, absl::string_view what);
std::string ToJson(const rapidjson::Value& value);
// Removes metadata.managedFields from an object read from the API. Tidepool never reads
// them (server-side apply keeps them on the server, and an update without them keeps the
// server's), and they are often a third of a pod's or Node's JSON: caches of 10,000
// objects would hold them for nothing.
void DropManagedFields(rapidjson::Value& object);

// The member `key` of `object`, or null when `object` is not an object or lacks it.
const rapidjson::Value* FindMember(const rapidjson::Value& object, const char* key);
std::string StringMember(const rapidjson::Value& object, const char* key);
// The same as a view into `object` (valid while it lives): no copy, for a member that is
// only compared.
absl::string_view StringViewMember(const rapidjson::Value& object, const char* key);
int64_t IntMember(const rapidjson::Value& object, const char* key);
bool BoolMember(const rapidjson::Value& object, const char* key);
// metadata.annotations[key] of an object's JSON; "" when unreadable or absent.
std::string AnnotationOf(absl::string_view object_json, const char* key);
// object[key], created as an empty JSON object when missing or not an object.
rapidjson::Value& ObjectMember(rapidjson::Value& object, const char* key,
                               rapidjson::Document::AllocatorType& allocator);
// The writer request bodies (apply and merge-patch) are written with, and its most common
// step: "key": "value", both copied (neither needs to outlive the call).
using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;
void WriteStringMember(JsonWriter& w, absl::string_view key, absl::string_view value);
// A JSON object written by `body` into an otherwise empty document.
std::string JsonObject(const std::function<void(JsonWriter&)>& body);
// {"metadata":{"annotations":{key: value}}}: a merge patch setting one annotation.
std::string AnnotationMergePatch(absl::string_view key, absl::string_view value);
// Sets object[key] (replacing what was there).
void SetMember(rapidjson::Value& object, const char* key, rapidjson::Value value,
               rapidjson::Document::AllocatorType& allocator);
void SetStringMember(rapidjson::Value& object, const char* key, absl::string_view value,
                     rapidjson::Document::AllocatorType& allocator);

// Time as the API writes it (conditions, timestamps): RFC 3339 in UTC, whole seconds,
// "2026-12-02T08:00:00Z".
std::string FormatApiTime(absl::Time time);
// MicroTime as the API writes it: RFC 3339 in UTC with microseconds,
// "2026-12-02T08:00:00.123456Z".
std::string FormatMicroTime(absl::Time time);
// Parses RFC 3339 with any fraction (MicroTime or Time, "…Z" or "…+02:00").
absl::StatusOr<absl::Time> ParseApiTime(absl::string_view text);

}  // namespace tidepool::k8s

#include "k8s/object_json.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "common/bounded_json.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace tidepool::k8s {

absl::StatusOr<rapidjson::Document> ParseJsonObject(absl::string_view json,
                                                    absl::string_view what) {
  rapidjson::Document doc;
  common::ParseBoundedJson(doc, json);
  if (doc.HasParseError() || !doc.IsObject()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is not a JSON object"));
  }
  return doc;
}

std::string ToJson(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

void DropManagedFields(rapidjson::Value& object) {
  if (!object.IsObject()) return;
  auto metadata = object.FindMember("metadata");
  if (metadata == object.MemberEnd() || !metadata->value.IsObject()) return;
  metadata->value.RemoveMember("managedFields");
}

const rapidjson::Value* FindMember(const rapidjson::Value& object, const char* key) {
  if (!object.IsObject()) return nullptr;
  auto it = object.FindMember(key);
  return it == object.MemberEnd() ? nullptr : &it->value;
}

std::string StringMember(const rapidjson::Value& object, const char* key) {
  return std::string(StringViewMember(object, key));
}

absl::string_view StringViewMember(const rapidjson::Value& object, const char* key) {
  const rapidjson::Value* value = FindMember(object, key);
  if (value == nullptr || !value->IsString()) return {};
  return absl::string_view(value->GetString(), value->GetStringLength());
}

std::string AnnotationOf(absl::string_view object_json, const char* key) {
  absl::StatusOr<rapidjson::Document> doc = ParseJsonObject(object_json, "object");
  if (!doc.ok()) return "";
  const rapidjson::Value* metadata = FindMember(*doc, "metadata");
  const rapidjson::Value* annotations =
      metadata != nullptr ? FindMember(*metadata, "annotations") : nullptr;
  return annotations != nullptr ? StringMember(*annotations, key) : "";
}

int64_t IntMember(const rapidjson::Value& object, const char* key) {
  const rapidjson::Value* value = FindMember(object, key);
  return value != nullptr && value->IsInt64() ? value->GetInt64() : 0;
}

bool BoolMember(const rapidjson::Value& object, const char* key) {
  const rapidjson::Value* value = FindMember(object, key);
  return value != nullptr && value->IsBool() && value->GetBool();
}

rapidjson::Value& ObjectMember(rapidjson::Value& object, const char* key,
                               rapidjson::Document::AllocatorType& allocator) {
  auto it = object.FindMember(key);
  if (it == object.MemberEnd()) {
    object.AddMember(rapidjson::Value(key, allocator), rapidjson::Value(rapidjson::kObjectType),
                     allocator);
    return object[key];
  }
  if (!it->value.IsObject()) it->value.SetObject();
  return it->value;
}

void SetMember(rapidjson::Value& object, const char* key, rapidjson::Value value,
               rapidjson::Document::AllocatorType& allocator) {
  auto it = object.FindMember(key);
  if (it != object.MemberEnd()) {
    it->value = value;
    return;
  }
  object.AddMember(rapidjson::Value(key, allocator), value, allocator);
}

void SetStringMember(rapidjson::Value& object, const char* key, absl::string_view value,
                     rapidjson::Document::AllocatorType& allocator) {
  SetMember(
      object, key,
      rapidjson::Value(value.data(), static_cast<rapidjson::SizeType>(value.size()), allocator),
      allocator);
}

std::string FormatApiTime(absl::Time time) {
  return absl::FormatTime("%Y-%m-%d%ET%H:%M:%SZ", time, absl::UTCTimeZone());
}

std::string FormatMicroTime(absl::Time time) {
  return absl::FormatTime("%Y-%m-%d%ET%H:%M:%E6SZ", time, absl::UTCTimeZone());
}

absl::StatusOr<absl::Time> ParseApiTime(absl::string_view text) {
  absl::Time time;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, std::string(text), &time, &error)) {
    return absl::InvalidArgumentError(absl::StrCat("time \"", text, "\" is not RFC 3339: ", error));
  }
  return time;
}

void WriteStringMember(JsonWriter& w, absl::string_view key, absl::string_view value) {
  w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
  w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

std::string JsonObject(const std::function<void(JsonWriter&)>& body) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  body(w);
  w.EndObject();
  return buffer.GetString();
}

std::string AnnotationMergePatch(absl::string_view key, absl::string_view value) {
  return JsonObject([&](JsonWriter& w) {
    w.Key("metadata");
    w.StartObject();
    w.Key("annotations");
    w.StartObject();
    WriteStringMember(w, key, value);
    w.EndObject();
    w.EndObject();
  });
}

}  // namespace tidepool::k8s

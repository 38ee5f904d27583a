#include "support/json.h"

#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace tidepool::testing {

absl::StatusOr<rapidjson::Document> ParseJson(absl::string_view text) {
  rapidjson::Document document;
  document.Parse(text.data(), text.size());
  if (document.HasParseError()) {
    return absl::InvalidArgumentError(
        absl::StrCat("not JSON at offset ", document.GetErrorOffset(), ": ",
                     rapidjson::GetParseError_En(document.GetParseError()), " in '",
                     text.substr(0, 300), text.size() > 300 ? "…'" : "'"));
  }
  return document;
}

const rapidjson::Value* FindPath(const rapidjson::Value& root, absl::string_view path) {
  const rapidjson::Value* value = &root;
  for (absl::string_view step : absl::StrSplit(path, '.', absl::SkipEmpty())) {
    size_t index = 0;
    if (value->IsArray() && absl::SimpleAtoi(step, &index)) {
      if (index >= value->Size()) return nullptr;
      value = &(*value)[static_cast<rapidjson::SizeType>(index)];
      continue;
    }
    if (!value->IsObject()) return nullptr;
    auto member = value->FindMember(
        rapidjson::Value(step.data(), static_cast<rapidjson::SizeType>(step.size())));
    if (member == value->MemberEnd()) return nullptr;
    value = &member->value;
  }
  return value;
}

std::string StringAt(const rapidjson::Value& root, absl::string_view path) {
  const rapidjson::Value* value = FindPath(root, path);
  return value != nullptr && value->IsString()
             ? std::string(value->GetString(), value->GetStringLength())
             : std::string();
}

std::string ToJson(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace tidepool::testing

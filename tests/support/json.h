#pragma once

// RapidJSON conveniences for tests: parse with an error message, look up by dotted path.

#include <rapidjson/document.h>

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tidepool::testing {

// Parses `text`; InvalidArgument with the offset and reason when it is not JSON.
absl::StatusOr<rapidjson::Document> ParseJson(absl::string_view text);

// The member at a dotted path ("metadata.resourceVersion"; "items.0.name" indexes
// arrays), or nullptr when any step is missing.
const rapidjson::Value* FindPath(const rapidjson::Value& root, absl::string_view path);

// The string at `path`, or "" when it is missing or not a string.
std::string StringAt(const rapidjson::Value& root, absl::string_view path);

// The value as compact JSON text (for messages).
std::string ToJson(const rapidjson::Value& value);

}  // namespace tidepool::testing

#pragma once

// A status condition of an API object as one comparable string, for assertions.

#include <functional>
#include <string>

#include "absl/strings/str_cat.h"
#include "k8s/conditions.h"
#include "rapidjson/document.h"

namespace tidepool::testing {

// Reads condition `type` of an object as "status/reason/message" ("" when absent).
inline std::function<std::string(const rapidjson::Value&)> Condition(const std::string& type) {
  return [type](const rapidjson::Value& object) -> std::string {
    const auto conditions = k8s::ReadConditions(object);
    auto it = conditions.find(type);
    if (it == conditions.end()) return "";
    return absl::StrCat(it->second.status, "/", it->second.reason, "/", it->second.message);
  };
}

}  // namespace tidepool::testing

#pragma once

// Fields the typed views (pod_view, node_view) read alike from an object's JSON.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "rapidjson/document.h"

namespace tidepool::api {

// Which of an object's annotations and conditions a view reads: all of them where a list is
// absent, else the listed ones only. A service that caches thousands of Nodes and pods reads
// only what its readers look at; the rest is never allocated.
struct ViewKeeps {
  std::optional<std::vector<std::string>> annotations;  // keys
  std::optional<std::vector<std::string>> conditions;   // types

  // Only the listed ones (an empty list keeps none).
  static ViewKeeps Only(std::vector<std::string> annotation_keys,
                        std::vector<std::string> condition_types);

  bool KeepsAnnotation(absl::string_view key) const;
  bool KeepsCondition(absl::string_view type) const;
};

// A JSON object of strings (labels, annotations) as a map; members that are not strings
// are left out, and anything but an object (or null) reads as empty.
std::map<std::string, std::string> StringMap(const rapidjson::Value* object);
// The same of the members whose name `kept` accepts only.
std::map<std::string, std::string> StringMap(const rapidjson::Value* object,
                                             absl::FunctionRef<bool(absl::string_view)> kept);

// The uid of metadata.ownerReferences' controller (controller: true), or "".
std::string ControllerUid(const rapidjson::Value& metadata);

}  // namespace tidepool::api

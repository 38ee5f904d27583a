#pragma once

// Fields the typed views (pod_view, node_view) read alike from an object's JSON.

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "rapidjson/document.h"

namespace tidepool::api {

// A JSON object of strings (labels, annotations) as a map; members that are not strings
// are left out, and anything but an object (or null) reads as empty.
std::map<std::string, std::string> StringMap(const rapidjson::Value* object);

// For std::erase_if on a map of annotations or conditions: true for an entry whose key is
// not in `kept` (which must outlive the predicate), the ones a cached view drops.
inline auto NotListedIn(const std::vector<std::string>& kept) {
  return [&kept](const auto& entry) {
    return std::find(kept.begin(), kept.end(), entry.first) == kept.end();
  };
}

// The uid of metadata.ownerReferences' controller (controller: true), or "".
std::string ControllerUid(const rapidjson::Value& metadata);

}  // namespace tidepool::api

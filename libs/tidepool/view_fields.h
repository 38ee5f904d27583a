#pragma once

// Fields the typed views (pod_view, node_view) read alike from an object's JSON.

#include <map>
#include <string>

#include "rapidjson/document.h"

namespace tidepool::api {

// A JSON object of strings (labels, annotations) as a map; members that are not strings
// are left out, and anything but an object (or null) reads as empty.
std::map<std::string, std::string> StringMap(const rapidjson::Value* object);

// The uid of metadata.ownerReferences' controller (controller: true), or "".
std::string ControllerUid(const rapidjson::Value& metadata);

}  // namespace tidepool::api

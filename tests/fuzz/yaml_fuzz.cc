// YAML documents (manifests, the renderer's offline input): every object comes out as JSON
// that parses, and alias fan-out stays bounded.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/bounded_json.h"
#include "k8s/yaml_documents.h"
#include "rapidjson/document.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<std::vector<std::string>> objects = tidepool::k8s::ObjectsAsJson(text);
  if (!objects.ok()) return 0;
  for (const std::string& json : *objects) {
    rapidjson::Document document;
    // Deeper than JSON from outside may be is refused before parsing; anything else must parse.
    if (!tidepool::common::ParseBoundedJson(document, json)) continue;
    if (document.HasParseError()) std::abort();
  }
  return 0;
}

// Every integer a CRD accepts has a maximum and every string a maxLength (or an enum): an
// unbounded integer can wrap the int32 or uint16 it reaches in Slurm, and an unbounded
// string makes objects, events and CEL costs as large as a writer likes.
#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "support/testenv.h"
#include "yaml-cpp/yaml.h"

namespace tidepool::testing {
namespace {

// Paths of the schema's unbounded integers and strings.
void FindUnbounded(const YAML::Node& schema, const std::string& path,
                   std::vector<std::string>& unbounded) {
  if (!schema.IsMap()) return;
  const std::string type = schema["type"] ? schema["type"].as<std::string>() : "";
  if (type == "integer" && !schema["maximum"]) unbounded.push_back(path + " (integer)");
  // The API server reads bounds as float64: past 2^53 a maximum is not an exact integer,
  // and it refuses every object of the kind.
  constexpr double kLargestExact = 9007199254740991.0;
  if (type == "integer" && schema["maximum"] && schema["maximum"].as<double>() > kLargestExact) {
    unbounded.push_back(path + " (maximum past 2^53-1)");
  }
  if (type == "string" && !schema["maxLength"] && !schema["enum"]) {
    unbounded.push_back(path + " (string)");
  }
  if (const YAML::Node properties = schema["properties"]; properties && properties.IsMap()) {
    for (const auto& property : properties) {
      FindUnbounded(property.second, path + "." + property.first.as<std::string>(), unbounded);
    }
  }
  if (schema["items"]) FindUnbounded(schema["items"], path + "[]", unbounded);
  if (schema["additionalProperties"]) {
    FindUnbounded(schema["additionalProperties"], path + "{}", unbounded);
  }
}

TEST_CASE("every integer and string a CRD accepts is bounded") {
  for (const char* file : {"tidepool.dev_slurmclusters.yaml", "tidepool.dev_nodesets.yaml"}) {
    const YAML::Node crd = YAML::LoadFile(SourceRoot() + "/manifests/crds/" + file);
    for (const YAML::Node& version : crd["spec"]["versions"]) {
      const YAML::Node schema = version["schema"]["openAPIV3Schema"];
      REQUIRE(schema.IsMap());
      std::vector<std::string> unbounded;
      for (const auto& property : schema["properties"]) {
        const std::string name = property.first.as<std::string>();
        // The API server itself checks these two.
        if (name == "apiVersion" || name == "kind") continue;
        FindUnbounded(property.second, "." + name, unbounded);
      }
      INFO(file << ": " << absl::StrJoin(unbounded, ", "));
      CHECK(unbounded.empty());
    }
  }
}

}  // namespace
}  // namespace tidepool::testing

#pragma once

// What the builders' tests share: the SlurmCluster "research" in "hpc" they build from, and
// reading built manifests (parse, the value at a path of member names and array indexes such
// as {"spec", "template", "spec", "containers", "0"}, and a container's environment variable
// by name).

#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "k8s/object_json.h"
#include "tidepool/v1/slurm_cluster.pb.h"

namespace tidepool::cluster {

inline v1::SlurmCluster ResearchCluster() {
  v1::SlurmCluster cluster;
  cluster.mutable_metadata()->set_name("research");
  cluster.mutable_metadata()->set_namespace_("hpc");
  cluster.mutable_metadata()->set_uid("uid-1");
  return cluster;
}

inline rapidjson::Document Parse(const std::string& json) {
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(json, "body");
  REQUIRE(doc.ok());
  return *std::move(doc);
}

inline const rapidjson::Value* At(const rapidjson::Value& root,
                                  const std::vector<std::string>& path) {
  const rapidjson::Value* at = &root;
  for (const std::string& step : path) {
    if (at->IsArray()) {
      const size_t index = std::stoul(step);
      if (index >= at->Size()) return nullptr;
      at = &(*at)[static_cast<rapidjson::SizeType>(index)];
    } else {
      at = k8s::FindMember(*at, step.c_str());
    }
    if (at == nullptr) return nullptr;
  }
  return at;
}

inline std::string StringAt(const rapidjson::Value& root, const std::vector<std::string>& path) {
  const rapidjson::Value* value = At(root, path);
  return value != nullptr && value->IsString() ? value->GetString() : "(none)";
}

inline int IntAt(const rapidjson::Value& root, const std::vector<std::string>& path) {
  const rapidjson::Value* value = At(root, path);
  return value != nullptr && value->IsInt() ? value->GetInt() : -1;
}

// The value of `container`'s environment variable `name`, "(none)" without one: looked up by
// name, so a test does not fail on a reordering that changes nothing.
inline std::string EnvValue(const rapidjson::Value& container, const std::string& name) {
  const rapidjson::Value* env = At(container, {"env"});
  if (env == nullptr || !env->IsArray()) return "(none)";
  for (const rapidjson::Value& variable : env->GetArray()) {
    if (StringAt(variable, {"name"}) == name) return StringAt(variable, {"value"});
  }
  return "(none)";
}

}  // namespace tidepool::cluster

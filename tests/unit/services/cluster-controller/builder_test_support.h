#pragma once

// What the builders' tests share: the SlurmCluster "research" in "hpc" they build from, and
// reading built manifests (parse, and the value at a path of member names and array
// indexes such as {"spec", "template", "spec", "containers", "0"}).

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

}  // namespace tidepool::cluster
